package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	// Three iterations of six instructions, the final test and the return.
	want := "gcd(1071, 462)\ngcd(462, 147)\ngcd(147, 21)\n= 21\ngcd ran 20 bytecode instructions in the interp tier\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
