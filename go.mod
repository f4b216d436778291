module github.com/kiln-jit/kiln

go 1.25.0

require (
	github.com/twitchyliquid64/golang-asm v0.15.1
	golang.org/x/arch v0.30.0
	golang.org/x/sys v0.47.0
)
