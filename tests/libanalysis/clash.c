/*
 * clash.c -- a program with functions of its own whose names the
 * library uses inside (model_free, hash_bytes, strtab_intern, analyze_run):
 * linked with the static library it must build (no duplicate symbols), and
 * each name must call the program's own function, while the library's
 * analysis still works.  Prints "own 42 runs N" for the file given.
 */
#include <waterfall_analysis.h>

#include <stdio.h>

int model_free(void *m);
int hash_bytes(const void *p, size_t n);
int strtab_intern(int x);
int analyze_run(int x);

int model_free(void *m)
{
    return m == NULL ? 10 : 0;
}

int hash_bytes(const void *p, size_t n)
{
    return p == NULL && n == 0 ? 10 : 0;
}

int strtab_intern(int x)
{
    return x + 10;
}

int analyze_run(int x)
{
    return x + 12;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int own = model_free(NULL) + hash_bytes(NULL, 0) + strtab_intern(0) + analyze_run(0);
    wfa_result *res = NULL;
    int st = wfa_analyze_file(argv[1], NULL, &res);
    printf("own %d runs %zu\n", own, res ? wfa_result_runs(res) : 0);
    wfa_result_free(res);
    return st;
}
