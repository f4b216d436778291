module github.com/kiln-jit/kiln

go 1.25.0
