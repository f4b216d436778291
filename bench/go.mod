module github.com/kiln-jit/kiln/bench

go 1.25.0

require (
	github.com/kiln-jit/kiln v0.0.0
	github.com/tetratelabs/wazero v1.12.0
)

require (
	github.com/twitchyliquid64/golang-asm v0.15.1 // indirect
	golang.org/x/arch v0.30.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

replace github.com/kiln-jit/kiln => ../
