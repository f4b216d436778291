/* Written for kiln's benchmarks (not from the Benchmarks Game): sorting
 * and searching. run(n) fills an array with n pseudo-random integers
 * (xorshift32), sorts it with a quicksort (median of three, recursion on
 * the smaller side, insertion sort below 16 elements), checks the order,
 * then looks up n keys by binary search, and returns
 * found<<32 | checksum of the sorted array (-1 when out of order). */

#define MAXN (1 << 20)

static int a[MAXN];
static unsigned state;

static unsigned xorshift(void)
{
    unsigned x = state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return state = x;
}

static void insertion(int *v, int lo, int hi)
{
    int i, j;
    for (i = lo + 1; i <= hi; i++) {
        int x = v[i];
        for (j = i - 1; j >= lo && v[j] > x; j--)
            v[j + 1] = v[j];
        v[j + 1] = x;
    }
}

static void quicksort(int *v, int lo, int hi)
{
    while (hi - lo >= 16) {
        int mid = lo + (hi - lo) / 2, t;
        if (v[mid] < v[lo]) { t = v[mid]; v[mid] = v[lo]; v[lo] = t; }
        if (v[hi] < v[lo]) { t = v[hi]; v[hi] = v[lo]; v[lo] = t; }
        if (v[hi] < v[mid]) { t = v[hi]; v[hi] = v[mid]; v[mid] = t; }
        int pivot = v[mid];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                t = v[i]; v[i] = v[j]; v[j] = t;
                i++;
                j--;
            }
        }
        if (j - lo < hi - i) {
            quicksort(v, lo, j);
            lo = i;
        } else {
            quicksort(v, i, hi);
            hi = j;
        }
    }
    insertion(v, lo, hi);
}

static int search(const int *v, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else if (v[mid] > key)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

long long run(int n)
{
    int i, found = 0;
    unsigned sum = 0;
    if (n > MAXN)
        n = MAXN;
    state = 2463534242u;
    for (i = 0; i < n; i++)
        a[i] = (int)(xorshift() % (unsigned)(4 * n));
    quicksort(a, 0, n - 1);
    for (i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return -1;
    for (i = 0; i < n; i++)
        sum = sum * 31 + (unsigned)a[i];
    for (i = 0; i < n; i++)
        if (search(a, n, (int)(xorshift() % (unsigned)(4 * n))) >= 0)
            found++;
    return ((long long)found << 32) | sum;
}
