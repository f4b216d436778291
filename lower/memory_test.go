package lower

import (
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// TestModuleGrowsMemory checks when lowered code reads memory's base and
// size again after calls: when the module's own memory.grow can move it,
// and when another instance sharing it can, during a host call.
func TestModuleGrowsMemory(t *testing.T) {
	grow := &bc.Function{Name: "g", Regs: []bc.Type{bc.I64}, Code: []bc.Instr{{Op: bc.OpMemoryGrow, Dst: 0, A: 0}, {Op: bc.OpReturn}}}
	plain := &bc.Function{Name: "p", Code: []bc.Instr{{Op: bc.OpReturn}}}
	host := []bc.HostImport{{Name: "h"}}
	tests := []struct {
		name  string
		mem   bc.Memory
		hosts []bc.HostImport
		fn    *bc.Function
		want  bool
	}{
		{"fixed size", bc.Memory{MinPages: 1, MaxPages: 1, Export: "m"}, host, grow, false},
		{"memory.grow", bc.Memory{MinPages: 1, MaxPages: 2}, nil, grow, true},
		{"no memory.grow", bc.Memory{MinPages: 1, MaxPages: 2}, host, plain, false},
		{"exported, host imports", bc.Memory{MinPages: 1, MaxPages: 2, Export: "m"}, host, plain, true},
		{"imported, host imports", bc.Memory{MinPages: 1, MaxPages: 2, Import: "m"}, host, plain, true},
		{"exported, no host imports", bc.Memory{MinPages: 1, MaxPages: 2, Export: "m"}, nil, plain, false},
	}
	for _, tt := range tests {
		m := &bc.Module{Memory: tt.mem, Hosts: tt.hosts, Funcs: []*bc.Function{tt.fn}}
		if got := moduleGrowsMemory(m); got != tt.want {
			t.Errorf("%s: moduleGrowsMemory = %v, want %v", tt.name, got, tt.want)
		}
	}
}
