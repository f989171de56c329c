/* A Pairs bot in C: the card counter of examples/bots/pairs_cautious.py.
 *
 * It speaks the JSON-lines protocol itself (docs/bots.md): one message per line on stdin,
 * one answer per line on stdout, logs on stderr. The small JSON reader below keeps, for
 * every value, where its text starts and ends, so the bot answers with a value of "legal"
 * exactly as the arena wrote it.
 *
 * Build: build.sh (cc -O2 -o main main.c), run at validation in the sandbox.
 * Try it:  python manage.py play pairs examples/bots/c_pairs random
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct json {
    enum kind kind;
    const char *start; /* the value's text in the line */
    size_t len;
    double num;
    struct json *child; /* first element or member; members carry their key */
    struct json *next;
    const char *key;
    size_t key_len;
} json;

static const char *skip(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static const char *parse(const char *p, json **out);

static const char *parse_string_end(const char *p) { /* p at the opening quote */
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p == '"' ? p + 1 : NULL;
}

static const char *parse(const char *p, json **out) {
    json *v = calloc(1, sizeof *v);
    if (!v) exit(1);
    p = skip(p);
    v->start = p;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        json **tail = &v->child;
        v->kind = *p == '{' ? J_OBJ : J_ARR;
        p = skip(p + 1);
        while (*p && *p != close) {
            const char *key = NULL, *key_end = NULL;
            if (v->kind == J_OBJ) {
                key = p + 1;
                if (!(key_end = parse_string_end(p))) return NULL;
                p = skip(key_end);
                if (*p++ != ':') return NULL;
            }
            if (!(p = parse(p, tail))) return NULL;
            if (key) { (*tail)->key = key; (*tail)->key_len = (size_t)(key_end - 1 - key); }
            tail = &(*tail)->next;
            p = skip(p);
            if (*p == ',') p = skip(p + 1);
        }
        if (*p != close) return NULL;
        p++;
    } else if (*p == '"') {
        v->kind = J_STR;
        if (!(p = parse_string_end(p))) return NULL;
    } else if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) {
        v->kind = *p == 't' ? J_BOOL : J_NULL;
        p += 4;
    } else if (!strncmp(p, "false", 5)) {
        v->kind = J_BOOL;
        p += 5;
    } else {
        char *end;
        v->kind = J_NUM;
        v->num = strtod(p, &end);
        if (end == p) return NULL;
        p = end;
    }
    v->len = (size_t)(p - v->start);
    *out = v;
    return p;
}

static void release(json *v) {
    while (v) {
        json *next = v->next;
        release(v->child);
        free(v);
        v = next;
    }
}

static json *get(const json *obj, const char *key) {
    if (!obj || obj->kind != J_OBJ) return NULL;
    for (json *m = obj->child; m; m = m->next)
        if (m->key_len == strlen(key) && !strncmp(m->key, key, m->key_len)) return m;
    return NULL;
}

static json *item(const json *arr, int index) {
    json *e = arr && arr->kind == J_ARR ? arr->child : NULL;
    while (e && index-- > 0) e = e->next;
    return e;
}

static int is_text(const json *v, const char *text) {
    return v && v->kind == J_STR && v->len == strlen(text) + 2 && !strncmp(v->start + 1, text, v->len - 2);
}

/* The choice: "hit" while the expected cost of pairing is below the lowest card in play. */
static const json *choose(const json *obs, const json *legal) {
    const json *hit = NULL, *fold = NULL;
    for (json *e = legal->child; e; e = e->next) {
        if (is_text(e, "hit")) hit = e;
        if (is_text(e, "fold")) fold = e;
    }
    if (!hit || !fold) return legal->child;
    json *stacks = get(obs, "stacks"), *unseen = get(obs, "unseen"), *seat = get(obs, "seat");
    json *mine = seat ? item(stacks, (int)seat->num) : NULL;
    double lowest = 1e9, total = 0, cost = 0;
    for (json *s = stacks ? stacks->child : NULL; s; s = s->next)
        for (json *c = s->child; c; c = c->next)
            if (c->num < lowest) lowest = c->num;
    for (json *u = unseen ? unseen->child : NULL; u; u = u->next) total += u->num;
    if (!mine || total == 0) return hit;
    for (json *c = mine->child; c; c = c->next) {
        json *copies = item(unseen, (int)c->num - 1);
        cost += (copies ? copies->num : 0) * c->num;
    }
    return cost / total * 1.15 <= lowest ? hit : fold;
}

int main(void) {
    static char line[1 << 20]; /* lines are at most 64 KiB by default (docs/bots.md) */
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        json *msg = NULL;
        if (!parse(line, &msg)) {
            fprintf(stderr, "cannot read: %.80s\n", line);
            return 2;
        }
        json *type = get(msg, "type");
        if (is_text(type, "start")) {
            puts("{\"type\":\"ready\"}");
        } else if (is_text(type, "act")) {
            const json *choice = choose(get(msg, "observation"), get(msg, "legal"));
            printf("{\"type\":\"action\",\"action\":%.*s}\n", (int)choice->len, choice->start);
        } else if (is_text(type, "end")) {
            release(msg);
            return 0;
        }
        release(msg);
    }
    return 0;
}
