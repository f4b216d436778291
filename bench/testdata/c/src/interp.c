/* Written for kiln's benchmarks (not from the Benchmarks Game): the inner
 * loop of a bytecode interpreter, the kind of code kiln's users hand it. A
 * stack machine with a switch dispatch runs a fixed program: for every i
 * in 1..n the length of i's Collatz sequence, summed, with the longest
 * remembered. run(n) returns sum<<32 | longest. */

enum {
    OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_SHR,
    OP_LT, OP_EQ, OP_JZ, OP_JMP, OP_DUP, OP_POP, OP_INC, OP_HALT
};

/* locals: 0 i, 1 n, 2 x, 3 steps, 4 sum, 5 longest */
enum { BODY = 31, EVEN = 50, NEXT = 55, DONE = 59, SKIP = 77, END = 81 };
static const int program[] = {
    /*  0 */ OP_PUSH, 1, OP_STORE, 0,                             /* i = 1 */
    /*  4 */ OP_LOAD, 0, OP_LOAD, 1, OP_PUSH, 1, OP_ADD, OP_LT, OP_JZ, END, /* while i < n+1 */
    /* 14 */ OP_LOAD, 0, OP_STORE, 2,                             /* x = i */
    /* 18 */ OP_PUSH, 0, OP_STORE, 3,                             /* steps = 0 */
    /* 22 */ OP_LOAD, 2, OP_PUSH, 1, OP_EQ, OP_JZ, BODY, OP_JMP, DONE, /* while x != 1 */
    /* 31 */ OP_LOAD, 2, OP_PUSH, 1, OP_AND, OP_JZ, EVEN,         /* if x odd */
    /* 38 */ OP_LOAD, 2, OP_PUSH, 3, OP_MUL, OP_PUSH, 1, OP_ADD, OP_STORE, 2, OP_JMP, NEXT,
    /* 50 */ OP_LOAD, 2, OP_SHR, OP_STORE, 2,                     /* else x >>= 1 */
    /* 55 */ OP_INC, 3, OP_JMP, 22,                               /* steps++ */
    /* 59 */ OP_LOAD, 4, OP_LOAD, 3, OP_ADD, OP_STORE, 4,         /* sum += steps */
    /* 66 */ OP_LOAD, 5, OP_LOAD, 3, OP_LT, OP_JZ, SKIP,          /* if longest < steps */
    /* 73 */ OP_LOAD, 3, OP_STORE, 5,                             /* longest = steps */
    /* 77 */ OP_INC, 0, OP_JMP, 4,                                /* i++ */
    /* 81 */ OP_HALT
};

static int code[sizeof program / sizeof program[0]];

static long long execute(const int *pc0, long long *locals)
{
    long long stack[64];
    long long *sp = stack;
    const int *pc = pc0;
    for (;;) {
        switch (*pc++) {
        case OP_PUSH: *sp++ = *pc++; break;
        case OP_LOAD: *sp++ = locals[*pc++]; break;
        case OP_STORE: locals[*pc++] = *--sp; break;
        case OP_ADD: sp--; sp[-1] += sp[0]; break;
        case OP_SUB: sp--; sp[-1] -= sp[0]; break;
        case OP_MUL: sp--; sp[-1] *= sp[0]; break;
        case OP_AND: sp--; sp[-1] &= sp[0]; break;
        case OP_SHR: sp[-1] = (long long)((unsigned long long)sp[-1] >> 1); break;
        case OP_LT: sp--; sp[-1] = sp[-1] < sp[0]; break;
        case OP_EQ: sp--; sp[-1] = sp[-1] == sp[0]; break;
        case OP_JZ: { int t = *pc++; if (*--sp == 0) pc = pc0 + t; break; }
        case OP_JMP: pc = pc0 + *pc; break;
        case OP_DUP: sp[0] = sp[-1]; sp++; break;
        case OP_POP: sp--; break;
        case OP_INC: locals[*pc++]++; break;
        default: return sp - stack;
        }
    }
}

long long run(int n)
{
    long long locals[8] = {0};
    unsigned i;
    for (i = 0; i < sizeof program / sizeof program[0]; i++)
        code[i] = program[i];
    locals[1] = n;
    execute(code, locals);
    return (locals[4] << 32) | (unsigned)locals[5];
}
