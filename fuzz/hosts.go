package fuzz

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/kiln-jit/kiln/bytecode"
)

// The host imports of generated programs. Each is a deterministic function
// of its arguments and of memory, so that every configuration sees the
// same host-call sequence. NaN arguments are used as they are: every tier
// passes the same NaN bits.
const (
	hostMix     = "mix"     // (i64 a, i64 b) -> (i64): a hash of a and b
	hostFMix    = "fmix"    // (f64 x, i64 n) -> (f64, i64): two results
	hostFail    = "fail"    // (i64 x) -> (i64): fails (HostError) when x&15 == 15
	hostPeek    = "peek"    // (i64 addr, i64 v) -> (i64): reads 8 bytes and writes one
	hostReenter = "reenter" // (i64 depth, i64 x) -> (i64): calls "reentry" back while depth > 0
	hostMix32   = "mix32"   // (i32 a, i32 b) -> (i32): a hash of a and b
	hostFMix32  = "fmix32"  // (f32 x, f64 y, i32 n, i64 m) -> (f64, f32, i64, i32): every type
	hostCancel  = "cancel"  // () -> (): cancels the running call's context
)

// reentryExport is the exported name hostReenter calls back into.
const reentryExport = "reentry"

// standardImports lists the host imports Generate may declare, in order.
var standardImports = []bytecode.HostImport{
	{Name: hostMix, Sig: sig(types(bytecode.I64, bytecode.I64), types(bytecode.I64))},
	{Name: hostFMix, Sig: sig(types(bytecode.F64, bytecode.I64), types(bytecode.F64, bytecode.I64))},
	{Name: hostFail, Sig: sig(types(bytecode.I64), types(bytecode.I64))},
	{Name: hostPeek, Sig: sig(types(bytecode.I64, bytecode.I64), types(bytecode.I64))},
	{Name: hostReenter, Sig: sig(types(bytecode.I64, bytecode.I64), types(bytecode.I64))},
	{Name: hostMix32, Sig: sig(types(bytecode.I32, bytecode.I32), types(bytecode.I32))},
	{Name: hostFMix32, Sig: sig(types(bytecode.F32, bytecode.F64, bytecode.I32, bytecode.I64),
		types(bytecode.F64, bytecode.F32, bytecode.I64, bytecode.I32))},
	{Name: hostCancel, Sig: sig(nil, nil)},
}

func types(ts ...bytecode.Type) []bytecode.Type { return ts }

func sig(params, results []bytecode.Type) bytecode.Signature {
	return bytecode.Signature{Params: params, Results: results}
}

// StandardHosts returns the host functions the programs of Generate
// import, for Options.Hosts.
func StandardHosts() map[string]HostFunc {
	return map[string]HostFunc{
		hostMix: func(c *HostCall) error {
			c.Results[0] = c.Args[0]*0x9E3779B97F4A7C15 + bits.RotateLeft64(c.Args[1], 17)
			return nil
		},
		hostFMix: func(c *HostCall) error {
			x, n := c.Args[0], c.Args[1]
			c.Results[0] = math.Float64bits(math.Float64frombits(x)*0.75 + float64(n&1023))
			c.Results[1] = x ^ n
			return nil
		},
		hostFail: func(c *HostCall) error {
			if c.Args[0]&15 == 15 {
				return fmt.Errorf("fail(%d)", int64(c.Args[0]))
			}
			c.Results[0] = c.Args[0] + 1
			return nil
		},
		hostPeek: func(c *HostCall) error {
			mem := c.Memory()
			if len(mem) < 4096 {
				c.Results[0] = ^uint64(0)
				return nil
			}
			addr := c.Args[0] & 0xFF8
			c.Results[0] = binary.LittleEndian.Uint64(mem[addr:])
			mem[(addr+8)&0xFFF] = byte(c.Args[1])
			return nil
		},
		hostReenter: func(c *HostCall) error {
			depth, x := int64(c.Args[0]), c.Args[1]
			if depth <= 0 {
				c.Results[0] = x ^ 0x55
				return nil
			}
			res, err := c.Call(reentryExport, uint64(depth-1), x)
			if err != nil {
				return err
			}
			c.Results[0] = res[0] + 1
			return nil
		},
		// The 32-bit hosts leave garbage in the upper halves of some of
		// their 32-bit results, which every configuration must ignore.
		hostMix32: func(c *HostCall) error {
			a, b := uint32(c.Args[0]), uint32(c.Args[1])
			r := a*0x9E3779B9 + bits.RotateLeft32(b, 13)
			c.Results[0] = uint64(r) | c.Args[1]<<32&garbage(b)
			return nil
		},
		hostFMix32: func(c *HostCall) error {
			x := math.Float32frombits(uint32(c.Args[0]))
			y, n, m := c.Args[1], uint32(c.Args[2]), c.Args[3]
			c.Results[0] = math.Float64bits(float64(x)*0.5 + math.Float64frombits(y))
			c.Results[1] = uint64(math.Float32bits(float32(math.Float64frombits(y))-x)) | y&garbage(n)
			c.Results[2] = m ^ uint64(n)<<7
			c.Results[3] = uint64(n+uint32(m>>32)) | m&garbage(n>>1)
			return nil
		},
		hostCancel: func(c *HostCall) error {
			c.CancelCall()
			return nil
		},
	}
}

// garbage returns a mask of the upper 32 bits when the low bit of v is
// set, and 0 otherwise.
func garbage(v uint32) uint64 { return -uint64(v&1) << 32 }
