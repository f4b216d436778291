package jit

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

// sharedMemoryOwner exports its memory and never grows it itself: its
// code must still see the memory another instance grows, also in the
// middle of a call (grow_then_load).
const sharedMemoryOwner = `memory 1 4 export "mem"
data 16 "kiln"
host env.grow (i64) -> (i64)

func grow_then_load (i64) -> (i64)
  regs i64
  i64.load8_u r1, [r0]
  call_host env.grow (r0) -> (r1)
  i64.const r0, 65536
  i64.mul r0, r0, r1
  i64.add r0, r0, 7
  i64.load8_u r0, [r0]
  ret r0
end

func load (i64) -> (i64)
  i64.load r0, [r0]
  ret r0
end

func store (i64 i64) -> ()
  i64.store [r0], r1
  ret
end

func size () -> (i64)
  regs i64
  memory.size r0
  ret r0
end

export "load" load
export "store" store
export "size" size
export "grow_then_load" grow_then_load
`

// ownerImports are the imports of sharedMemoryOwner: env.grow grows the
// memory through the instance *via.
func ownerImports(via **Instance) Imports {
	return Imports{"env.grow": RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64}, func(c *Caller, args, results []uint64) error {
		if *via == nil {
			return errors.New("no instance to grow the memory through")
		}
		f, err := (*via).Func("grow")
		if err != nil {
			return err
		}
		return f.CallInto(c.Context(), args, results)
	})}
}

// sharedMemoryUser imports the memory; grow_via_host lets a host function
// grow it (through another instance) and then reads a byte of the new
// page, which only code that reloads the memory's bounds after the call
// can do.
const sharedMemoryUser = `memory 1 4 import "env.mem"
data 20 "!"
host env.grow_other (i64) -> (i64)

func load (i64) -> (i64)
  i64.load8_u r0, [r0]
  ret r0
end

func grow (i64) -> (i64)
  memory.grow r0, r0
  ret r0
end

func grow_via_host (i64) -> (i64)
  regs i64
  call_host env.grow_other (r0) -> (r1)
  i64.const r0, 65536
  i64.mul r0, r0, r1
  i64.add r0, r0, 5
  i64.load8_u r0, [r0]
  ret r0
end

func spin (i64) -> (i64)
  call_host env.grow_other (r0) -> (r0)
  ret r0
end

export "load" load
export "grow" grow
export "grow_via_host" grow_via_host
export "spin" spin
`

func TestSharedMemory(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			e := newEngine(t, cfg.opts)
			owner, err := e.LoadText([]byte(sharedMemoryOwner))
			if err != nil {
				t.Fatal(err)
			}
			user, err := e.LoadText([]byte(sharedMemoryUser))
			if err != nil {
				t.Fatal(err)
			}
			checkCompiled(t, cfg.opts.Tier, owner)
			checkCompiled(t, cfg.opts.Tier, user)
			var other *Instance // the instance the host functions grow through
			a, err := owner.Instantiate(ownerImports(&other))
			if err != nil {
				t.Fatal(err)
			}
			mem, err := a.ExportedMemory()
			if err != nil {
				t.Fatal(err)
			}
			if mem.Pages() != 1 || mem.MaxPages() != 4 {
				t.Fatalf("exported memory: %d pages of at most %d, want 1 of 4", mem.Pages(), mem.MaxPages())
			}
			growOther := RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64}, func(c *Caller, args, results []uint64) error {
				f, err := other.Func("grow")
				if err != nil {
					return err
				}
				return f.CallInto(c.Context(), args, results)
			})
			b, err := user.Instantiate(Imports{"env.mem": mem, "env.grow_other": growOther})
			if err != nil {
				t.Fatal(err)
			}
			// The host function grows the memory through a third
			// instance, of the user's module too.
			if other, err = user.Instantiate(Imports{"env.mem": mem, "env.grow_other": growOther}); err != nil {
				t.Fatal(err)
			}
			call := func(inst *Instance, name string, args ...uint64) uint64 {
				t.Helper()
				got, err := inst.Call(ctx, name, args...)
				if err != nil {
					t.Fatalf("%s%v: %v", name, args, err)
				}
				if len(got) == 0 {
					return 0
				}
				return got[0]
			}
			// Both data segments went into the one memory.
			if got := call(a, "load", 16); got != 0x216e6c696b {
				t.Errorf("owner's load(16) = %#x, want the bytes of \"kiln!\"", got)
			}
			call(a, "store", 100, 0x1234)
			if got := call(b, "load", 100); got != 0x34 {
				t.Errorf("user's load(100) = %#x, want 0x34 written by the owner", got)
			}
			// The user grows the memory: the owner, which has no
			// memory.grow, sees the new size and the new page.
			if got := call(b, "grow", 1); got != 1 {
				t.Fatalf("grow(1) = %d, want 1", got)
			}
			if got := call(a, "size"); got != 2 {
				t.Errorf("owner's memory.size = %d after the user grew it, want 2", got)
			}
			call(a, "store", 65536+8, 0x99)
			if got := call(b, "load", 65536+8); got != 0x99 {
				t.Errorf("user's load(65544) = %#x, want 0x99", got)
			}
			// The owner's code, which has no memory.grow, reads the page
			// a host function added during its call.
			if got := call(a, "grow_then_load", 1); got != 0 {
				t.Errorf("grow_then_load(1) = %d, want 0 (a fresh byte of page 2)", got)
			}
			// A host function grows the memory through another instance
			// in the middle of a call: the code after the host call reads
			// the page it added.
			if got := call(b, "grow_via_host", 1); got != 0 {
				t.Errorf("grow_via_host(1) = %d, want 0 (a fresh byte of page 3)", got)
			}
			if got := call(a, "size"); got != 4 {
				t.Errorf("memory.size = %d, want 4", got)
			}
			if got := call(b, "grow", 1); got != ^uint64(0) {
				t.Errorf("grow(1) beyond the maximum = %d, want -1", got)
			}
		})
	}
}

// TestSharedMemoryHold checks that instances of one memory never run at
// once on two goroutines, and that a host function's nested call with its
// Caller's context goes ahead.
func TestSharedMemoryHold(t *testing.T) {
	e, a, mem := sharedMemoryOwnerInstance(t)
	user, err := e.LoadText([]byte(sharedMemoryUser))
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var nested, detached error
	host := RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64}, func(c *Caller, args, results []uint64) error {
		// With the Caller's context, a call on another instance of the
		// memory is part of this call; with another context it is not.
		_, nested = a.Call(c.Context(), "size")
		_, detached = a.Call(context.Background(), "size")
		close(entered)
		<-release
		return nil
	})
	b, err := user.Instantiate(Imports{"env.mem": mem, "env.grow_other": host})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := b.Call(context.Background(), "spin", 0)
		done <- err
	}()
	<-entered
	if _, err := a.Call(context.Background(), "size"); !errors.Is(err, ErrMemoryBusy) {
		t.Errorf("a call on the owner while the user runs on another goroutine: %v, want ErrMemoryBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if nested != nil {
		t.Errorf("nested call with the Caller's context: %v", nested)
	}
	if !errors.Is(detached, ErrMemoryBusy) {
		t.Errorf("nested call with a fresh context: %v, want ErrMemoryBusy", detached)
	}
	if got, err := a.Call(context.Background(), "size"); err != nil || got[0] != 1 {
		t.Errorf("size after the user's call = %v, %v; want 1 (the memory is free again)", got, err)
	}
}

// sharedMemoryOwnerInstance returns an interpreting engine, an instance
// of sharedMemoryOwner on it and the instance's memory.
func sharedMemoryOwnerInstance(t *testing.T) (*Engine, *Instance, MemoryImport) {
	t.Helper()
	e := newEngine(t, Options{})
	owner, err := e.LoadText([]byte(sharedMemoryOwner))
	if err != nil {
		t.Fatal(err)
	}
	a, err := owner.Instantiate(ownerImports(new(*Instance)))
	if err != nil {
		t.Fatal(err)
	}
	mem, err := a.ExportedMemory()
	if err != nil {
		t.Fatal(err)
	}
	return e, a, mem
}

func TestMemoryImportErrors(t *testing.T) {
	e, a, mem := sharedMemoryOwnerInstance(t)
	owner := a.Module()
	load := func(src string) *Module {
		t.Helper()
		m, err := e.LoadText([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	importer := func(min, max int) *Module {
		return load(strings.Replace(sharedMemoryUser, "memory 1 4", "memory "+strconv.Itoa(min)+" "+strconv.Itoa(max), 1))
	}
	host := RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64}, func(*Caller, []uint64, []uint64) error { return nil })
	for _, tt := range []struct {
		name    string
		mod     *Module
		imports Imports
		want    string
	}{
		{"missing", importer(1, 4), Imports{"env.grow_other": host}, `jit: instantiate: missing import "env.mem": the module imports its memory`},
		{"not a memory", importer(1, 4), Imports{"env.mem": GlobalI64(1), "env.grow_other": host}, `jit: instantiate: import "env.mem" is a global; the module imports its memory`},
		{"empty", importer(1, 4), Imports{"env.mem": MemoryImport{}, "env.grow_other": host}, `jit: instantiate: memory import "env.mem" is empty`},
		{"too small", importer(2, 4), Imports{"env.mem": mem, "env.grow_other": host}, `jit: instantiate: memory import "env.mem" has 1 pages; the module needs at least 2`},
		{"may grow too far", importer(1, 3), Imports{"env.mem": mem, "env.grow_other": host}, `jit: instantiate: memory import "env.mem" may grow to 4 pages; the module allows at most 3`},
		{"not imported", owner, Imports{"env.mem": mem, "env.grow": host}, `jit: instantiate: the module imports no memory "env.mem"`},
	} {
		if _, err := tt.mod.Instantiate(tt.imports); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	plain := load("memory 1 1\nfunc f () -> ()\n  ret\nend\n")
	p, err := plain.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ExportedMemory(); err == nil {
		t.Error("ExportedMemory of a module that does not export its memory succeeded")
	}
}

// TestSetTableEntry changes entries of an exported table and of an
// imported one, in every tier and after Optimize.
func TestSetTableEntry(t *testing.T) {
	src := pickSource("table 3 export \"tab\"\nelem 0 inc")
	ctx := context.Background()
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			for _, table := range []string{`table 3 export "tab"`, `table 3 import "env.table"`} {
				mod, err := newEngine(t, cfg.opts).LoadText([]byte(strings.Replace(src, `table 3 export "tab"`, table, 1)))
				if err != nil {
					t.Fatal(err)
				}
				checkCompiled(t, cfg.opts.Tier, mod)
				imports := Imports{}
				if strings.Contains(table, "import") {
					imports["env.table"] = TableFuncs("", "", "")
				}
				a, err := mod.Instantiate(imports)
				if err != nil {
					t.Fatal(err)
				}
				b, err := mod.Instantiate(imports)
				if err != nil {
					t.Fatal(err)
				}
				check := func(inst *Instance, idx, want uint64, trap bytecode.TrapKind) {
					t.Helper()
					got, err := inst.Call(ctx, "pick", idx, 10)
					var tr *bytecode.Trap
					switch {
					case trap != 0 && (!errors.As(err, &tr) || tr.Kind != trap):
						t.Errorf("%s: pick(%d) = %v, %v; want a %s trap", table, idx, got, err, trap)
					case trap == 0 && (err != nil || got[0] != want):
						t.Errorf("%s: pick(%d) = %v, %v; want %d", table, idx, got, err, want)
					}
				}
				check(a, 0, 11, 0)
				check(a, 1, 0, bytecode.TrapUninitializedElement)
				for _, set := range []struct {
					idx  uint32
					name string
				}{{1, "dbl"}, {0, ""}, {2, "inc"}} {
					if err := a.SetTableEntry(set.idx, set.name); err != nil {
						t.Fatal(err)
					}
				}
				check(a, 0, 0, bytecode.TrapUninitializedElement)
				check(a, 1, 20, 0)
				check(a, 2, 11, 0)
				check(a, 3, 0, bytecode.TrapUndefinedElement)
				// The other instance of the module keeps its table.
				check(b, 0, 11, 0)
				check(b, 1, 0, bytecode.TrapUninitializedElement)
				if cfg.opts.Tier == TierInterp {
					if err := a.Optimize(); err == nil {
						check(a, 1, 20, 0)
						check(a, 0, 0, bytecode.TrapUninitializedElement)
						if err := a.SetTableEntry(0, "dbl"); err != nil {
							t.Fatal(err)
						}
						check(a, 0, 20, 0)
					}
				}
				if err := a.SetTableEntry(3, "inc"); err == nil || !strings.Contains(err.Error(), "out of range") {
					t.Errorf("SetTableEntry beyond the table: %v", err)
				}
				if err := a.SetTableEntry(0, "nope"); err == nil || !strings.Contains(err.Error(), `no function "nope"`) {
					t.Errorf("SetTableEntry of an unknown function: %v", err)
				}
			}
		})
	}
	mod, err := newEngine(t, Options{}).LoadText([]byte(strings.Replace(src, `table 3 export "tab"`, "table 3", 1)))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.SetTableEntry(0, "dbl"); err == nil {
		t.Error("SetTableEntry on a table that is neither imported nor exported succeeded")
	}
}

// TestMemoryCopyOverlaps copies every length up to 140 bytes between
// places up to 70 bytes apart, in both directions, in compiled code (the
// short forward and backward loops and the block move beyond them) and
// compares the memory after each copy with Go's copy of the same bytes.
func TestMemoryCopyOverlaps(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	src := `
memory 1 1
func move (i64 i64 i64) -> ()
  memory.copy r0, r1, r2
  ret
end
export "move" move
`
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		mod := loadTier(t, tier, Options{}, src)
		inst, err := mod.Instantiate(nil)
		if err != nil {
			t.Fatal(err)
		}
		const base = 1000
		pattern := make([]byte, 512)
		for i := range pattern {
			pattern[i] = byte(i*7 + 3)
		}
		for n := 0; n <= 140; n++ {
			for d := -70; d <= 70; d++ {
				if err := inst.WriteMemory(base-100, pattern); err != nil {
					t.Fatal(err)
				}
				from, to := base, base+d
				if _, err := inst.Call(context.Background(), "move", uint64(to), uint64(from), uint64(n)); err != nil {
					t.Fatal(err)
				}
				want := slices.Clone(pattern)
				copy(want[to-(base-100):], want[from-(base-100):from-(base-100)+n])
				got, err := inst.ReadMemory(base-100, uint64(len(pattern)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: copy of %d bytes from %d to %d: memory differs from Go's copy", tier, n, from, to)
				}
			}
		}
	}
}
