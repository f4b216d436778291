package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	// Three iterations of six instructions, the final test and the return.
	want := "gcd(1071, 462)\ngcd(462, 147)\ngcd(147, 21)\n= 21\ngcd ran 20 bytecode instructions in the interp tier\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestRunCancelled checks that a cancelled context (an interrupt) stops
// the example before it prints anything.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	err := run(ctx, &out)
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Fatalf("run with a cancelled context: error %v, output %q; want context.Canceled and no output", err, out.String())
	}
}
