package testprogs

import (
	"encoding/binary"
	"math/bits"
)

// I32 returns the bits of an i32 value (zero-extended).
func I32(v int32) uint64 { return uint64(uint32(v)) }

// sieve32Native is the sieve32 kernel in Go.
func sieve32Native(n int32) int32 {
	if n <= 2 {
		return 0
	}
	flags := make([]byte, n)
	for i := int32(0); i < n; i++ {
		flags[i] = 1
	}
	var count int32
	for i := int32(2); i < n; i++ {
		if flags[i] == 0 {
			continue
		}
		count++
		for j := uint32(i) * uint32(i); j < uint32(n); j += uint32(i) {
			flags[j] = 0
		}
	}
	return count
}

// hash32Native is the hash32 kernel in Go: MurmurHash3 (x86_32) of n bytes
// from a linear congruential generator.
func hash32Native(n int32, seed uint32) uint32 {
	if n < 0 {
		n = 0
	}
	mem := make([]byte, n)
	x := seed ^ 0x5bd1e995
	for i := range mem {
		x = x*1664525 + 1013904223
		mem[i] = byte(x >> 24)
	}
	h := seed
	end := uint32(n) / 4 * 4
	i := uint32(0)
	for ; i < end; i += 4 {
		k := binary.LittleEndian.Uint32(mem[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	if tail := uint32(n) % 4; tail != 0 {
		var k uint32
		if tail >= 3 {
			k ^= uint32(mem[i+2]) << 16
		}
		if tail >= 2 {
			k ^= uint32(mem[i+1]) << 8
		}
		k ^= uint32(mem[i])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// mandel32Native is the mandel32 kernel in Go, in float32 (each operation
// rounded to float32, as the bytecode does).
func mandel32Native(size, maxiter int32) (int32, float32) {
	var total int32
	var check float32
	if size <= 0 {
		return 0, 0
	}
	scale := float32(2.5) / float32(size)
	for y := int32(0); y < size; y++ {
		ci := float32(float32(y)*scale) - 1.25
		for x := int32(0); x < size; x++ {
			cr := float32(float32(x)*scale) - 2
			var zr, zi float32
			it := int32(0)
			for it < maxiter {
				zr2 := float32(zr * zr)
				zi2 := float32(zi * zi)
				if float32(zr2+zi2) > 4 {
					break
				}
				t := float32(zr * zi)
				zi = float32(float32(t+t) + ci)
				zr = float32(float32(zr2-zi2) + cr)
				it++
			}
			total += it
			check = float32(check + float32(float32(zr*zr)+float32(zi*zi)))
		}
	}
	return total, check
}
