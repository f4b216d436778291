package binary

import (
	"bytes"
	"math"
	"testing"
)

// TestLEB128 checks the encoders against known encodings, the extremes
// included.
func TestLEB128(t *testing.T) {
	for _, c := range []struct {
		v    uint32
		want []byte
	}{
		{0, []byte{0x00}}, {1, []byte{0x01}}, {127, []byte{0x7f}}, {128, []byte{0x80, 0x01}},
		{624485, []byte{0xe5, 0x8e, 0x26}}, {math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	} {
		if got := AppendU32(nil, c.v); !bytes.Equal(got, c.want) {
			t.Errorf("AppendU32(%d) = %x, want %x", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0x00}}, {1, []byte{0x01}}, {-1, []byte{0x7f}}, {63, []byte{0x3f}}, {64, []byte{0xc0, 0x00}},
		{-64, []byte{0x40}}, {-65, []byte{0xbf, 0x7f}}, {-123456, []byte{0xc0, 0xbb, 0x78}},
		{math.MinInt64, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}},
		{math.MaxInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}},
	} {
		if got := AppendS64(nil, c.v); !bytes.Equal(got, c.want) {
			t.Errorf("AppendS64(%d) = %x, want %x", c.v, got, c.want)
		}
	}
}

// TestAppendName checks a name's length prefix.
func TestAppendName(t *testing.T) {
	if got := AppendName([]byte{9}, "héllo"); !bytes.Equal(got, []byte{9, 6, 'h', 0xc3, 0xa9, 'l', 'l', 'o'}) {
		t.Errorf("AppendName = %x", got)
	}
}
