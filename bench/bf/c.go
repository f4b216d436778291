package bf

import (
	"fmt"
	"strings"
)

// C translates ops to a C program that times itself. Run as
//
//	PROGRAM REPS < input
//
// it reads its whole input, then runs the translated program REPS times,
// each time on a zeroed tape and from the start of the input, timing each
// run (tape reset excluded) with clock_gettime(CLOCK_MONOTONIC). It fails
// with status 3 when a run's output differs from the first run's. It
// writes the output of the last run to standard output and then the total
// nanoseconds of all runs, as "ns N", to standard error.
func C(ops []Op) []byte {
	var b strings.Builder
	b.WriteString(cPrologue)
	b.WriteString("static void run(void) {\n\tunsigned char *p = tape;\n")
	emitC(&b, ops, 1)
	b.WriteString("}\n")
	b.WriteString(cMain)
	return []byte(b.String())
}

func emitC(b *strings.Builder, ops []Op, depth int) {
	indent := strings.Repeat("\t", depth)
	for _, op := range ops {
		switch op.Kind {
		case Add:
			fmt.Fprintf(b, "%s*p += %d;\n", indent, op.N)
		case Move:
			fmt.Fprintf(b, "%sp += %d;\n", indent, op.N)
		case Out:
			fmt.Fprintf(b, "%sout_byte(*p);\n", indent)
		case In:
			fmt.Fprintf(b, "%s{ int c = in_byte(); if (c >= 0) *p = (unsigned char)c; }\n", indent)
		case Loop:
			fmt.Fprintf(b, "%swhile (*p) {\n", indent)
			emitC(b, op.Body, depth+1)
			fmt.Fprintf(b, "%s}\n", indent)
		}
	}
}

const cPrologue = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned char tape[65536];
static unsigned char *in;
static size_t in_len, in_pos;
static unsigned char *out;
static size_t out_len, out_cap;

static void out_byte(unsigned char c) {
	if (out_len == out_cap) {
		out_cap = out_cap ? 2 * out_cap : 4096;
		out = realloc(out, out_cap);
		if (!out) abort();
	}
	out[out_len++] = c;
}

static int in_byte(void) {
	return in_pos < in_len ? in[in_pos++] : -1;
}

`

const cMain = `
int main(int argc, char **argv) {
	long reps = argc > 1 ? atol(argv[1]) : 1;
	size_t cap = 4096;
	in = malloc(cap);
	size_t n;
	while (in && (n = fread(in + in_len, 1, cap - in_len, stdin)) > 0) {
		in_len += n;
		if (in_len == cap) in = realloc(in, cap *= 2);
	}
	if (!in) abort();
	long long total = 0;
	unsigned char *first = NULL;
	size_t first_len = 0;
	for (long r = 0; r < reps; r++) {
		memset(tape, 0, sizeof tape);
		in_pos = 0;
		out_len = 0;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		run();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		total += (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
		if (r == 0) {
			first_len = out_len;
			first = malloc(first_len + 1);
			if (!first) abort();
			if (out_len) memcpy(first, out, out_len);
		} else if (out_len != first_len || (out_len && memcmp(out, first, out_len) != 0)) {
			fprintf(stderr, "run %ld: the output differs from the first run's\n", r + 1);
			return 3;
		}
	}
	fwrite(out, 1, out_len, stdout);
	fflush(stdout);
	fprintf(stderr, "ns %lld\n", total);
	return 0;
}
`
