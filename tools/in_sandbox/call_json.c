
static void jg_str(const char* s) {
    putchar('"');
    for (const unsigned char* c = (const unsigned char*)s; s && *c; c++) {
        if (*c == '"' || *c == '\\') { putchar('\\'); putchar(*c); }
        else if (*c < 0x20) printf("\\u%04x", *c);
        else putchar(*c);
    }
    putchar('"');
}
static void jg_char(char c) { char s[2] = {c, 0}; jg_str(s); }
static void jg_int(long long v) { printf("%lld", v); }
static void jg_bool(bool v) { fputs(v ? "true" : "false", stdout); }
static void jg_real(double v) {
    if (isfinite(v)) printf("%.17g", v); else fputs(isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity", stdout);
}
/* A result whose type the runner does not read from the signature, printed as its type is (a struct does not build). */
#define jg_any(x) _Generic((x), _Bool: jg_bool, char: jg_char, char*: jg_str, const char*: jg_str, float: jg_real, \
    double: jg_real, long double: jg_real, default: jg_int)(x)
static const unsigned char __JG_KEY___masked[] = {__JG_MASKED__};
static const unsigned char __JG_KEY___mask[] = {__JG_MASK__};
static void __JG_KEY___token(void) {
    for (size_t i = 0; i < sizeof __JG_KEY___mask; i++) putchar(__JG_KEY___masked[i] ^ __JG_KEY___mask[i]);
}
