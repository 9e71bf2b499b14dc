/* Strict JSON reader and writer (src/core/json_read.c, json_write.c): RFC 8259 grammar, escapes, positions of errors,
 * limits, and writer round trips. */
#include "json.h"
#include "kt.h"

#include <string.h>

static kri_json *parse_ok(const char *text)
{
    kri_json *v = NULL;
    KT_OK(kri_json_parse(text, strlen(text), "t.json", &v));
    return v;
}

/* Expect KR_ERR_FORMAT with "line L, column C" and `frag` in the sentence. */
#define BAD(text, L, C, frag)                                                                  \
    do {                                                                                       \
        kri_json *bad_ = (kri_json *)1;                                                        \
        KT_STATUS(kri_json_parse(text, strlen(text), "t.json", &bad_), KR_ERR_FORMAT);         \
        KT_CHECK(bad_ == NULL);                                                                \
        char want_[64];                                                                        \
        snprintf(want_, sizeof want_, "t.json: line %d, column %d: ", L, C);                   \
        KT_CHECK_MSG(strstr(kr_last_error(), want_) != NULL, "'%s' lacks '%s'",               \
                     kr_last_error(), want_);                                                  \
        KT_CHECK_MSG(strstr(kr_last_error(), frag) != NULL, "'%s' lacks '%s'", kr_last_error(), \
                     frag);                                                                    \
    } while (0)

static void test_values(void)
{
    kri_json *v = parse_ok(" {\"a\": [1, -0, 2.5e3, -1.25E-2, 0.1, 123456789012345],\n"
                           " \"b\": {\"c\": null, \"d\": true, \"e\": false},\n"
                           " \"s\": \"x\\\"y\\\\z\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\", "
                           "\"u\": \"\xc3\xa9\"}\n");
    KT_CHECK(v && v->type == KRI_JSON_OBJECT && v->n == 4);
    kri_json *a = kri_json_get(v, "a");
    KT_CHECK(a && a->type == KRI_JSON_ARRAY && a->n == 6);
    KT_CHECK(a->items[0]->num == 1 && a->items[0]->is_integer);
    KT_CHECK(a->items[1]->num == 0 && signbit(a->items[1]->num));
    KT_CHECK(a->items[2]->num == 2500 && !a->items[2]->is_integer);
    KT_CHECK(a->items[3]->num == -0.0125);
    KT_CHECK(a->items[4]->num == 0.1);
    KT_CHECK(a->items[5]->num == 123456789012345.0);
    KT_CHECK(a->line == 1 && a->col == 8);
    kri_json *b = kri_json_get(v, "b");
    KT_CHECK(b->line == 2 && b->col == 7);
    KT_CHECK(kri_json_get(b, "c")->type == KRI_JSON_NULL);
    KT_CHECK(kri_json_get(b, "d")->type == KRI_JSON_TRUE);
    KT_CHECK(kri_json_get(b, "e")->type == KRI_JSON_FALSE);
    const char *s = kri_json_get(v, "s")->str;
    KT_CHECK(strcmp(s, "x\"y\\z/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80") == 0);
    KT_CHECK(strcmp(kri_json_get(v, "u")->str, "\xc3\xa9") == 0);
    KT_CHECK(kri_json_get(v, "zz") == NULL);
    kri_json_free(v);

    v = parse_ok("\xef\xbb\xbf[]"); /* BOM skipped */
    KT_CHECK(v->type == KRI_JSON_ARRAY && v->n == 0);
    kri_json_free(v);
    v = parse_ok("\"\"");
    KT_CHECK(v->type == KRI_JSON_STRING && v->str[0] == '\0');
    kri_json_free(v);
    v = parse_ok("1e308");
    KT_CHECK(v->num == 1e308);
    kri_json_free(v);
    v = parse_ok("4.9406564584124654e-324"); /* smallest subnormal is in range */
    KT_CHECK(v->num > 0);
    kri_json_free(v);
    kri_json_free(NULL);
}

static void test_errors(void)
{
    BAD("", 1, 1, "empty");
    BAD("   \n  ", 2, 3, "empty");
    BAD("{\"a\": 1,}", 1, 9, "trailing comma");
    BAD("[1, 2,]", 1, 7, "trailing comma");
    BAD("{\"a\" 1}", 1, 6, "expected ':'");
    BAD("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'");
    BAD("{a: 1}", 1, 2, "expected a string key");
    BAD("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key \"a\"");
    BAD("[01]", 1, 2, "leading zero");
    BAD("[1.]", 1, 2, "after '.'");
    BAD("[.5]", 1, 2, "bare '.'");
    BAD("[+1]", 1, 2, "'+'");
    BAD("[1e]", 1, 2, "exponent");
    BAD("[-]", 1, 2, "after '-'");
    BAD("{\"x\":\n  NaN}", 2, 3, "NaN");
    BAD("[Infinity]", 1, 2, "Infinity");
    BAD("[1e999]", 1, 2, "out of the range");
    BAD("[tru]", 1, 2, "expected true");
    BAD("[nul", 1, 2, "expected null");
    BAD("\"abc", 1, 1, "unterminated string");
    BAD("\"a\tb\"", 1, 3, "control character 0x09");
    BAD("\"\\x\"", 1, 2, "invalid escape");
    BAD("\"\\u12G4\"", 1, 2, "four hex digits");
    BAD("\"\\udc00\"", 1, 2, "lone low surrogate");
    BAD("\"\\ud800x\"", 1, 2, "not followed by a low one");
    BAD("\"\\u0000\"", 1, 2, "NUL");
    BAD("\"\xc3\"", 1, 2, "invalid UTF-8");
    BAD("\"\xed\xa0\x80\"", 1, 2, "invalid UTF-8"); /* encoded surrogate */
    BAD("\"\xc0\xaf\"", 1, 2, "invalid UTF-8");     /* overlong */
    BAD("[1] [2]", 1, 5, "after the end");
    BAD("{\"a\": [1, 2", 1, 12, "expected ',' or ']'");
    BAD("{\"a\": ", 1, 7, "truncated");
    BAD("// c\n1", 1, 1, "expected a value");

    /* nesting limit: 64 levels parse, 65 do not */
    char deep[200];
    int n = 0;
    for (int i = 0; i < KRI_JSON_MAX_DEPTH; i++) deep[n++] = '[';
    for (int i = 0; i < KRI_JSON_MAX_DEPTH; i++) deep[n++] = ']';
    deep[n] = 0;
    kri_json *v = parse_ok(deep);
    kri_json_free(v);
    n = 0;
    for (int i = 0; i <= KRI_JSON_MAX_DEPTH; i++) deep[n++] = '[';
    for (int i = 0; i <= KRI_JSON_MAX_DEPTH; i++) deep[n++] = ']';
    deep[n] = 0;
    BAD(deep, 1, 65, "nesting deeper than 64");

    KT_STATUS(kri_json_parse("1", 1, "t", NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kri_json_parse(NULL, 3, "t", &v), KR_ERR_INVALID_ARG);
}

static void test_take(void)
{
    kri_json *v = parse_ok("{\"n\": 3, \"x\": 2.5, \"s\": \"hi\", \"f\": 1.5, \"big\": 1e20,\n"
                           " \"extra\": 0}");
    double x;
    int64_t n;
    const char *s;
    int present = -1;
    KT_OK(kri_json_take_int(v, "n", 1, "g.json", "", 1, 10, &n, NULL));
    KT_CHECK(n == 3);
    KT_OK(kri_json_take_num(v, "x", 1, "g.json", "", &x, &present));
    KT_CHECK(x == 2.5 && present == 1);
    KT_OK(kri_json_take_num(v, "absent", 0, "g.json", "", &x, &present));
    KT_CHECK(present == 0);
    KT_OK(kri_json_take_str(v, "s", 1, "g.json", "", &s));
    KT_CHECK(strcmp(s, "hi") == 0);
    KT_STATUS(kri_json_take_int(v, "f", 1, "g.json", "", 0, 10, &n, NULL), KR_ERR_FORMAT);
    KT_CHECK(strstr(kr_last_error(), "field 'f' at line 1, column 36 must be an integer") != NULL);
    KT_STATUS(kri_json_take_int(v, "big", 1, "g.json", "img", 0, 10, &n, NULL), KR_ERR_FORMAT);
    KT_CHECK(strstr(kr_last_error(), "field 'img.big'") != NULL);
    KT_STATUS(kri_json_take_num(v, "s", 1, "g.json", "", &x, NULL), KR_ERR_FORMAT);
    KT_CHECK(strstr(kr_last_error(), "must be a number, got string") != NULL);
    KT_STATUS(kri_json_take_num(v, "missing", 1, "g.json", "", &x, NULL), KR_ERR_FORMAT);
    KT_CHECK(strcmp(kr_last_error(), "g.json: missing field 'missing'") == 0);
    KT_STATUS(kri_json_check_unused(v, "g.json", "", "n, x, s"), KR_ERR_FORMAT);
    KT_CHECK(strstr(kr_last_error(), "unknown field 'extra' at line 2, column 11 (accepted "
                                     "here: n, x, s)") != NULL);
    kri_json_free(v);
}

static void test_writer(void)
{
    kri_jw w;
    kri_jw_init(&w);
    kri_jw_begin_object(&w, 0);
    kri_jw_key(&w, "name");
    kri_jw_string(&w, "a\"b\\c\n\x01\xc3\xa9");
    kri_jw_key(&w, "v");
    kri_jw_begin_array(&w, 1);
    double vals[] = {0.1, -0.0, 1e-300, 3.0, 1.0 / 3.0, 2.5e17, 123456.789};
    for (int i = 0; i < 7; i++) kri_jw_number(&w, vals[i]);
    kri_jw_end_array(&w);
    kri_jw_key(&w, "i");
    kri_jw_int(&w, -9007199254740993LL);
    kri_jw_key(&w, "o");
    kri_jw_begin_object(&w, 1);
    kri_jw_key(&w, "t");
    kri_jw_bool(&w, 1);
    kri_jw_key(&w, "n");
    kri_jw_null(&w);
    kri_jw_end_object(&w);
    kri_jw_key(&w, "empty");
    kri_jw_begin_array(&w, 0);
    kri_jw_end_array(&w);
    kri_jw_end_object(&w);
    char *text = NULL;
    size_t len = 0;
    KT_OK(kri_jw_finish(&w, &text, &len));
    KT_CHECK(text && strlen(text) == len);
    KT_CHECK(strstr(text, "\"v\": [0.1, -0, 1e-300, 3, 0.3333333333333333, 2.5e+17, "
                          "123456.789]") != NULL);
    KT_CHECK(strstr(text, "\"name\": \"a\\\"b\\\\c\\n\\u0001\xc3\xa9\"") != NULL);
    KT_CHECK(strstr(text, "\"o\": {\"t\": true, \"n\": null}") != NULL);
    KT_CHECK(strstr(text, "\"empty\": []") != NULL);
    kri_json *v = parse_ok(text);
    KT_CHECK(strcmp(kri_json_get(v, "name")->str, "a\"b\\c\n\x01\xc3\xa9") == 0);
    const kri_json *a = kri_json_get(v, "v");
    for (int i = 0; i < 7; i++) KT_CHECK(memcmp(&a->items[i]->num, &vals[i], sizeof(double)) == 0);
    KT_CHECK(kri_json_get(v, "i")->num == -9007199254740992.0); /* nearest double */
    kri_json_free(v);
    kri_free(text);

    /* non-finite numbers are refused */
    kri_jw_init(&w);
    kri_jw_begin_array(&w, 1);
    kri_jw_number(&w, NAN);
    kri_jw_end_array(&w);
    KT_STATUS(kri_jw_finish(&w, &text, &len), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "cannot represent") != NULL);
    /* incomplete documents are refused */
    kri_jw_init(&w);
    kri_jw_begin_array(&w, 1);
    KT_STATUS(kri_jw_finish(&w, &text, &len), KR_ERR_INTERNAL);
    /* a one-line object with values the caller formatted */
    kri_jw_init(&w);
    kri_jw_begin_object(&w, 1);
    kri_jw_key(&w, "t");
    kri_jw_raw(&w, "0.250000");
    kri_jw_key(&w, "d");
    kri_jw_begin_array(&w, 1);
    kri_jw_int(&w, 4);
    kri_jw_raw(&w, "5");
    kri_jw_end_array(&w);
    kri_jw_end_object(&w);
    KT_OK(kri_jw_finish(&w, &text, &len));
    KT_CHECK(strcmp(text, "{\"t\": 0.250000, \"d\": [4, 5]}\n") == 0);
    kri_free(text);

    /* shortest round-trip formatting over many doubles */
    char buf[32];
    int bad = 0;
    for (uint64_t i = 0; i < 20000; i++) {
        uint64_t bits = kri_rand_u64(7, i);
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) continue;
        kri_json_format_double(d, buf);
        kri_json *p = NULL;
        if (kri_json_parse(buf, strlen(buf), "num", &p) != KR_OK || p->num != d) bad++;
        kri_json_free(p);
    }
    KT_CHECK(bad == 0);
}

int main(void)
{
    KT_RUN(test_values);
    KT_RUN(test_errors);
    KT_RUN(test_take);
    KT_RUN(test_writer);
    return kt_finish();
}
