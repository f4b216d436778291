/* Written for kiln's benchmarks (not from the Benchmarks Game): LZ77
 * compression with hash chains, as in deflate's fast modes. run(n) makes n
 * bytes of text from a small vocabulary with a linear congruential
 * generator, compresses it (window 32 KiB, matches of 3 to 258 bytes, the
 * first match at least as long as the best of 32 candidates wins), checks
 * that decompressing the tokens alone gives the text back, and returns
 * tokens<<32 | checksum of the token stream (-1 on a mismatch). */

#define MAXN (1 << 20)
#define WINDOW 32768
#define HBITS 15
#define MINMATCH 3
#define MAXMATCH 258
#define CHAIN 32

static unsigned char text[MAXN];
static unsigned char back[MAXN];
static int head[1 << HBITS];
static int prev[WINDOW];
static int tokLen[MAXN];
static int tokDist[MAXN];

static const char *const words[] = {
    "the ", "of ", "and ", "a ", "to ", "in ", "is ", "register ",
    "allocation ", "spill ", "reload ", "loop ", "edge ", "block ",
    "value ", "distance ", "frequency ", "copy ", "cut ", "graph ",
};

static unsigned seed;

static unsigned next(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 16;
}

static int hash3(const unsigned char *p)
{
    unsigned h = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
    return (int)((h * 2654435761u) >> (32 - HBITS));
}

long long run(int n)
{
    int i, k, ntok = 0;
    if (n > MAXN)
        n = MAXN;
    seed = 42;
    for (i = 0; i < n;) {
        const char *w = words[next() % (sizeof words / sizeof words[0])];
        if (next() % 16 == 0)
            text[i++] = (unsigned char)('A' + next() % 26);
        while (*w && i < n)
            text[i++] = (unsigned char)*w++;
    }
    for (k = 0; k < (1 << HBITS); k++)
        head[k] = -1;
    for (i = 0; i < n;) {
        int bestLen = 0, bestDist = 0;
        if (i + MINMATCH <= n) {
            int h = hash3(text + i);
            int cand = head[h];
            int chain = CHAIN;
            int limit = n - i < MAXMATCH ? n - i : MAXMATCH;
            while (cand >= 0 && i - cand <= WINDOW && chain-- > 0) {
                int len = 0;
                while (len < limit && text[cand + len] == text[i + len])
                    len++;
                if (len > bestLen) {
                    bestLen = len;
                    bestDist = i - cand;
                    if (len == limit)
                        break;
                }
                cand = prev[cand % WINDOW];
            }
        }
        if (bestLen < MINMATCH) {
            /* A literal: length 0, the byte in place of the distance. */
            tokLen[ntok] = 0;
            tokDist[ntok] = text[i];
            bestLen = 1;
        } else {
            tokLen[ntok] = bestLen;
            tokDist[ntok] = bestDist;
        }
        ntok++;
        for (k = 0; k < bestLen; k++, i++) {
            if (i + MINMATCH <= n) {
                int h = hash3(text + i);
                prev[i % WINDOW] = head[h];
                head[h] = i;
            }
        }
    }
    /* Decompress and check; checksum the tokens. */
    unsigned sum = 0;
    int o = 0;
    for (k = 0; k < ntok; k++) {
        int len = tokLen[k], dist = tokDist[k];
        if (len == 0) {
            back[o++] = (unsigned char)dist;
            sum = sum * 31 + (unsigned)dist;
        } else {
            int j;
            for (j = 0; j < len; j++, o++)
                back[o] = back[o - dist];
            sum = sum * 31 + (unsigned)len * 65599u + (unsigned)dist;
        }
    }
    for (i = 0; i < n; i++)
        if (back[i] != text[i])
            return -1;
    return ((long long)ntok << 32) | sum;
}
