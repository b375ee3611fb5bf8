/* SPDX-License-Identifier: MIT */
/* base/demangle.c: an Itanium C++ ABI demangler in plain C for kernel names, bounded and allocation-free. */
#include <string.h>
#include "demangle.h"

/* Written from the ABI's grammar (itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling); the
   printed form follows what libstdc++'s __cxa_demangle prints, which tests/unit/test_demangle.c
   and the differential test compare against. Two passes: the parser builds a graph of nodes
   (a substitution or a template parameter is a second reference to a node already built),
   then the printer walks it. Anything not understood fails the whole name: the caller shows
   it mangled, which is never wrong, where a guess could be. */

int cua_demangle_names = 1;

#define MAX_NODES 1200
#define MAX_SUBS 256
#define MAX_TARGS 64
#define MAX_DEPTH 64 /* the longest chain a loop follows (no stack) */
#define MAX_STEPS (1u << 20)
/* The stack: every recursion counts its levels against one of two limits, and no frame
   holds an array, so that the worst case of any input stays under CUA_DEMANGLE_STACK_MAX
   (tests/unit/test_demangle.c measures it on hostile names). Real kernel names need at
   most 25 levels of the parser and 16 of the printer (tests/data/kernel_names.txt and
   libstdc++'s exports); a name past either limit stays mangled. */
#define PARSE_DEPTH 40
#define PRINT_DEPTH 32
#define MAX_WORK 1024  /* same_generation's explicit stack */
#define MAX_SAVED 512  /* template arguments saved across an entity's encoding */

enum kind {
	K_NAME,     /* s[0,n) */
	K_NESTED,   /* a::b */
	K_TEMPLATE, /* a<list b> */
	K_ITEM,     /* list cell: element a, next b (-1 ends) */
	K_QUAL,     /* a with cv-qualifiers flags */
	K_PTR,      /* a* */
	K_LREF,     /* a& */
	K_RREF,     /* a&& */
	K_FUNC,     /* return a (-1 none), parameters list b, flags cv, ref */
	K_ARRAY,    /* a [s] */
	K_PTRMEM,   /* member type b of class a */
	K_CTOR,     /* a's constructor, or destructor with flags */
	K_OPER,     /* operator s */
	K_CONV,     /* operator a */
	K_ABITAG,   /* a[abi:s] */
	K_LOCAL,    /* a::b, a an encoding */
	K_STRLIT,   /* string literal */
	K_LAMBDA,   /* {lambda(list a)#n} */
	K_UNNAMED,  /* {unnamed type#n} */
	K_ENCODING, /* name a, function type b (K_FUNC) */
	K_LITERAL,  /* type a, digits s, flags negative */
	K_PACK,     /* list a */
	K_PACKEXP,  /* pattern a */
	K_SPECIAL,  /* text s, then a */
	K_CLONE,    /* a [clone s] */
	K_ADDR,     /* &a, or &(a) for a function */
	K_TPARAM,   /* template parameter flags: stands for a, resolved in table generation n */
};

enum { Q_CONST = 1, Q_VOLATILE = 2, Q_RESTRICT = 4, F_DTOR = 1, F_NEG = 1, F_BUILTIN = 1 };
enum { REF_NONE = 0, REF_L = 1, REF_R = 2 };

struct node {
	const char *s;
	unsigned n;
	int a, b;
	unsigned char kind, flags, ref;
};

struct dm {
	const char *p, *end;
	int depth, failed;
	int in_expansion; /* inside a pack expansion's pattern: a pack may be its operand */
	int in_local;     /* inside the function of a local name (Z <encoding> E) */
	int member_next;  /* the next type is a member pointer's member type */
	int entity_next;  /* the next name is a local name's entity (may start with a closure) */
	unsigned nnodes, nsubs, ntargs;
	unsigned gen, next_gen; /* which template arguments targs holds now */
	unsigned nsaved;         /* in use of saved */
	int subs[MAX_SUBS];
	int work[MAX_WORK];
	int saved[MAX_SAVED];    /* the enclosing template arguments, while an entity's are read */
	int targs[MAX_TARGS];
	struct node nodes[MAX_NODES];
};

/* What a name says about the function it names: its cv and ref qualifiers (a member
   function), and whether its encoding carries a return type. */
struct name_info {
	unsigned cv, ref;
	int template_args; /* ends with template arguments */
	int no_return;     /* a constructor, destructor or conversion operator */
};

/* ---------------------------------------------------------------- input */

static int peek(const struct dm *d)
{
	return d->p < d->end ? (unsigned char)d->p[0] : 0;
}

static int peek_at(const struct dm *d, size_t k)
{
	return (size_t)(d->end - d->p) > k ? (unsigned char)d->p[k] : 0;
}

static int eat(struct dm *d, int c)
{
	if (peek(d) != c)
		return 0;
	d->p++;
	return 1;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static int fail(struct dm *d)
{
	d->failed = 1;
	return -1;
}

static int node(struct dm *d, enum kind k, int a, int b)
{
	struct node *n;

	if (d->failed || d->nnodes >= MAX_NODES)
		return fail(d);
	n = &d->nodes[d->nnodes];
	n->s = NULL;
	n->n = 0;
	n->flags = n->ref = 0;
	n->kind = (unsigned char)k;
	n->a = a;
	n->b = b;
	return (int)d->nnodes++;
}

static int text(struct dm *d, enum kind k, const char *s, size_t len)
{
	int i = node(d, k, -1, -1);

	if (i >= 0) {
		d->nodes[i].s = s;
		d->nodes[i].n = (unsigned)len;
	}
	return i;
}

static int push_sub(struct dm *d, int n)
{
	if (n < 0)
		return -1;
	if (d->nsubs >= MAX_SUBS)
		return fail(d);
	d->subs[d->nsubs++] = n;
	return n;
}

/* <number> without sign: decimal digits, bounded well below any overflow. */
static int number(struct dm *d, unsigned long *out)
{
	unsigned long v = 0;

	if (!is_digit(peek(d)))
		return -1;
	while (is_digit(peek(d))) {
		v = v * 10 + (unsigned long)(peek(d) - '0');
		if (v > 100000000ul)
			return -1;
		d->p++;
	}
	*out = v;
	return 0;
}

/* Recursion guard around every parser that can recurse. */
static int enter(struct dm *d)
{
	if (d->failed || ++d->depth > PARSE_DEPTH) {
		d->failed = 1;
		return 0;
	}
	return 1;
}

static int leave(struct dm *d, int r)
{
	d->depth--;
	if (r < 0)
		d->failed = 1;
	return d->failed ? -1 : r;
}

/* ---------------------------------------------------------------- parser */

static int type(struct dm *d);
static int same_generation(struct dm *d, int n, unsigned *budget);
static int pkind(const struct dm *d, int n);
static int reinstantiate(struct dm *d, int n, unsigned *budget);
static int encoding(struct dm *d, struct name_info *info);
static int name(struct dm *d, int tag, struct name_info *info);

static int source_name(struct dm *d)
{
	unsigned long len;
	const char *s;

	if (number(d, &len) != 0 || len == 0 || len > (unsigned long)(d->end - d->p))
		return fail(d);
	s = d->p;
	d->p += len;
	/* The ABI's names for an anonymous namespace: _GLOBAL_ then '.', '_' or '$', then N. */
	if (len >= 10 && memcmp(s, "_GLOBAL_", 8) == 0 && (s[8] == '.' || s[8] == '_' || s[8] == '$') &&
	    s[9] == 'N')
		return text(d, K_NAME, "(anonymous namespace)", 21);
	return text(d, K_NAME, s, len);
}

static const struct {
	char code[3];
	const char *name;
} operators[] = {
	{ "nw", "new" }, { "na", "new[]" }, { "dl", "delete" }, { "da", "delete[]" },
	{ "ps", "+" },   { "ng", "-" },     { "ad", "&" },      { "de", "*" },
	{ "co", "~" },   { "pl", "+" },     { "mi", "-" },      { "ml", "*" },
	{ "dv", "/" },   { "rm", "%" },     { "an", "&" },      { "or", "|" },
	{ "eo", "^" },   { "aS", "=" },     { "pL", "+=" },     { "mI", "-=" },
	{ "mL", "*=" },  { "dV", "/=" },    { "rM", "%=" },     { "aN", "&=" },
	{ "oR", "|=" },  { "eO", "^=" },    { "ls", "<<" },     { "rs", ">>" },
	{ "lS", "<<=" }, { "rS", ">>=" },   { "eq", "==" },     { "ne", "!=" },
	{ "lt", "<" },   { "gt", ">" },     { "le", "<=" },     { "ge", ">=" },
	{ "ss", "<=>" }, { "nt", "!" },     { "aa", "&&" },     { "oo", "||" },
	{ "pp", "++" },  { "mm", "--" },    { "cm", "," },      { "pm", "->*" },
	{ "pt", "->" },  { "cl", "()" },    { "ix", "[]" },     { "qu", "?" },
};

static int operator_name(struct dm *d, struct name_info *info)
{
	if (peek(d) == 'c' && peek_at(d, 1) == 'v') {
		int t;

		d->p += 2;
		t = type(d);
		if (info)
			info->no_return = 1;
		return t < 0 ? -1 : node(d, K_CONV, t, -1);
	}
	for (size_t i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		if (peek(d) == operators[i].code[0] && peek_at(d, 1) == operators[i].code[1]) {
			d->p += 2;
			return text(d, K_OPER, operators[i].name, strlen(operators[i].name));
		}
	}
	return fail(d);
}

/* [<number>] _ : the discriminator of an unnamed type or a closure, counted from 1. */
static int closure_number(struct dm *d, unsigned *out)
{
	unsigned long v = 0;

	if (is_digit(peek(d))) {
		if (number(d, &v) != 0)
			return -1;
		v++;
	}
	if (!eat(d, '_'))
		return -1;
	*out = (unsigned)v + 1;
	return 0;
}

/* Types up to 'E' (a lambda's parameters, a function's): a lone void is no parameter. */
static int type_list(struct dm *d, int stop_at_ref)
{
	int first = -1, last = -1, count = 0, only_void = 0, voids = 0;

	while (!d->failed && peek(d) != 'E' && peek(d) != '.' && peek(d) != 0) {
		int t, item;

		if (stop_at_ref && (peek(d) == 'R' || peek(d) == 'O') && peek_at(d, 1) == 'E')
			break;
		only_void = peek(d) == 'v';
		voids += only_void;
		t = type(d);
		item = node(d, K_ITEM, t, -1);
		if (t < 0 || item < 0)
			return fail(d);
		if (last >= 0)
			d->nodes[last].b = item;
		else
			first = item;
		last = item;
		count++;
	}
	/* No parameter list has void beside other parameters. */
	if (count == 0 || (voids && count > 1))
		return fail(d);
	return count == 1 && only_void ? -1 : first;
}

static int unnamed_type(struct dm *d)
{
	unsigned num;
	int n, params = -1;

	if (eat(d, 't')) {
		if (closure_number(d, &num) != 0)
			return fail(d);
		n = node(d, K_UNNAMED, -1, -1);
	} else if (eat(d, 'l')) {
		/* A generic lambda's own template parameters (Ty, Tn, Tt, Tp) are not handled. */
		if (peek(d) == 'T' && (peek_at(d, 1) == 'y' || peek_at(d, 1) == 'n' ||
				       peek_at(d, 1) == 't' || peek_at(d, 1) == 'p'))
			return fail(d);
		params = type_list(d, 0);
		if (d->failed || !eat(d, 'E') || closure_number(d, &num) != 0)
			return fail(d);
		n = node(d, K_LAMBDA, params, -1);
	} else {
		return fail(d);
	}
	if (n >= 0)
		d->nodes[n].n = num;
	return n;
}

static int abi_tags(struct dm *d, int n)
{
	while (n >= 0 && eat(d, 'B')) {
		int tag = source_name(d);

		if (tag < 0)
			return fail(d);
		if (d->nodes[tag].s[0] == '(')
			return fail(d); /* an anonymous-namespace spelling is no tag */
		n = node(d, K_ABITAG, n, -1);
		if (n >= 0) {
			d->nodes[n].s = d->nodes[tag].s;
			d->nodes[n].n = d->nodes[tag].n;
		}
	}
	return n;
}

static int unqualified_name(struct dm *d, struct name_info *info)
{
	int c = peek(d), n;

	if (is_digit(c))
		n = source_name(d);
	else if (c == 'U')
		n = (d->p++, unnamed_type(d));
	else if (is_lower(c))
		n = operator_name(d, info);
	else
		return fail(d);
	return abi_tags(d, n);
}

/* S_, S<seq-id>_ and the standard abbreviations. in_nested: the abbreviation is a prefix
   whose next component may be a constructor (libstdc++ then spells it out: not handled). */
static int substitution(struct dm *d, int in_nested)
{
	static const struct {
		char c;
		const char *text;
		int nested; /* std::name: a K_NESTED of std and name */
	} abbrev[] = {
		{ 'a', "allocator", 1 },   { 'b', "basic_string", 1 }, { 's', "std::string", 0 },
		{ 'i', "std::istream", 0 }, { 'o', "std::ostream", 0 }, { 'd', "std::iostream", 0 },
	};
	unsigned long id = 0;
	int c;

	if (!eat(d, 'S'))
		return fail(d);
	c = peek(d);
	for (size_t i = 0; i < sizeof(abbrev) / sizeof(abbrev[0]); i++) {
		if (c != abbrev[i].c)
			continue;
		d->p++;
		if (!abbrev[i].nested) {
			if (in_nested && (peek(d) == 'C' || peek(d) == 'D'))
				return fail(d);
			return text(d, K_NAME, abbrev[i].text, strlen(abbrev[i].text));
		}
		return node(d, K_NESTED, text(d, K_NAME, "std", 3),
			    text(d, K_NAME, abbrev[i].text, strlen(abbrev[i].text)));
	}
	if (c == '_') {
		d->p++;
	} else {
		while ((c = peek(d)) != '_') {
			if (is_digit(c))
				id = id * 36 + (unsigned long)(c - '0');
			else if (c >= 'A' && c <= 'Z')
				id = id * 36 + (unsigned long)(c - 'A' + 10);
			else
				return fail(d);
			if (id > MAX_SUBS)
				return fail(d);
			d->p++;
		}
		d->p++;
		id++;
	}
	if (id >= d->nsubs)
		return fail(d);
	/* A pack expansion stands where it is written, not where it is named again. */
	if (pkind(d, d->subs[id]) == K_PACKEXP)
		return fail(d);
	{
		unsigned budget = 4096;

		return reinstantiate(d, d->subs[id], &budget);
	}
}

static int template_param(struct dm *d)
{
	unsigned long idx = 0;
	int n;

	if (!eat(d, 'T'))
		return fail(d);
	if (!eat(d, '_')) {
		if (number(d, &idx) != 0 || !eat(d, '_'))
			return fail(d);
		idx++;
	}
	if (idx >= d->ntargs)
		return fail(d);
	n = node(d, K_TPARAM, d->targs[idx], -1);
	if (n >= 0) {
		d->nodes[n].n = d->gen;
		d->nodes[n].flags = (unsigned char)idx; /* < MAX_TARGS */
		d->nodes[n].ref = d->in_local > 0;
	}
	return n;
}

/* The node a template parameter stands for. */
static int strip(const struct dm *d, int n)
{
	for (int i = 0; n >= 0 && d->nodes[n].kind == K_TPARAM && i < MAX_DEPTH; i++)
		n = d->nodes[n].a;
	return n;
}

static int pkind(const struct dm *d, int n)
{
	n = strip(d, n);
	return n >= 0 ? d->nodes[n].kind : -1;
}

/* libstdc++ resolves a template parameter where it prints it: a candidate holding one that
   was resolved under other template arguments (those of an entity named inside a template
   argument) would print differently there. Such a reference fails the name. */
static int same_generation(struct dm *d, int n, unsigned *budget)
{
	unsigned top = 0;

	/* A walk of the graph with its own stack (in the state), not the thread's: a list or a
	   nested name is as deep as it is long. Out of either stack or budget: *budget is 0,
	   and the caller fails the name. */
	d->work[top++] = n;
	while (top > 0) {
		const struct node *x;

		n = d->work[--top];
		if (n < 0)
			continue;
		if (*budget == 0)
			return 0;
		--*budget;
		x = &d->nodes[n];
		if (x->kind == K_TPARAM && x->n != d->gen)
			return 0;
		if (top + 2 > MAX_WORK) {
			*budget = 0;
			return 0;
		}
		d->work[top++] = x->b;
		d->work[top++] = x->a;
	}
	return 1;
}

/* libstdc++ resolves a template parameter where it prints it: a candidate built while other
   template arguments were in force (inside the entity of an L_Z...E argument) means, where
   it is referred to now, what its parameters name now. A copy of it, re-resolved. */
static int reinstantiate_node(struct dm *d, int n, unsigned *budget);

/* The copy's levels count against the parser's depth; a list's items are followed in a
   loop, so that a long list is no deep recursion. */
static int reinstantiate(struct dm *d, int n, unsigned *budget)
{
	int first = -1, last = -1;

	if (n < 0)
		return n;
	if (d->nodes[n].kind != K_ITEM)
		return enter(d) ? leave(d, reinstantiate_node(d, n, budget)) : -1;
	for (; n >= 0 && !d->failed; n = d->nodes[n].b) {
		int a, item;

		if (d->nodes[n].kind != K_ITEM || *budget == 0)
			return fail(d); /* a list ends in -1 */
		--*budget;
		if (!enter(d))
			return -1;
		a = leave(d, d->nodes[n].a < 0 ? 0 : reinstantiate_node(d, d->nodes[n].a, budget));
		item = a < 0 ? -1 : node(d, K_ITEM, d->nodes[n].a < 0 ? -1 : a, -1);
		if (item < 0)
			return fail(d);
		if (last >= 0)
			d->nodes[last].b = item;
		else
			first = item;
		last = item;
	}
	return d->failed ? -1 : first;
}

static int reinstantiate_node(struct dm *d, int n, unsigned *budget)
{
	struct node *x;
	int a, b, copy;

	if (*budget == 0)
		return fail(d);
	--*budget;
	x = &d->nodes[n];
	if (x->kind == K_TPARAM) {
		if (x->n == d->gen)
			return n;
		/* One of a local name's function: libstdc++ prints it one way or the other
		   depending on where it stands; not followed. */
		if (x->flags >= d->ntargs || x->ref)
			return fail(d);
		copy = node(d, K_TPARAM, d->targs[x->flags], -1);
		if (copy >= 0) {
			d->nodes[copy].n = d->gen;
			d->nodes[copy].flags = d->nodes[n].flags;
		}
		return copy;
	}
	{
		unsigned probe = 4096;

		if (same_generation(d, n, &probe))
			return n;
		if (probe == 0)
			return fail(d);
	}
	a = reinstantiate(d, x->a, budget);
	b = reinstantiate(d, d->nodes[n].b, budget);
	if (d->failed || (copy = node(d, (enum kind)d->nodes[n].kind, a, b)) < 0)
		return fail(d);
	d->nodes[copy].s = d->nodes[n].s;
	d->nodes[copy].n = d->nodes[n].n;
	d->nodes[copy].flags = d->nodes[n].flags;
	d->nodes[copy].ref = d->nodes[n].ref;
	return copy;
}

/* The template arguments in force, kept in the state (not in a frame) while an entity's
   own are read; *base says where, for targs_restore. */
static int targs_save(struct dm *d, unsigned *base)
{
	if (d->ntargs > MAX_SAVED - d->nsaved)
		return fail(d);
	*base = d->nsaved;
	memcpy(d->saved + d->nsaved, d->targs, d->ntargs * sizeof(d->targs[0]));
	d->nsaved += d->ntargs;
	return 0;
}

/* Pops what targs_save kept; puts it back in force when restore says so. */
static void targs_restore(struct dm *d, unsigned base, unsigned gen, int restore)
{
	if (restore) {
		d->ntargs = d->nsaved - base;
		memcpy(d->targs, d->saved + base, d->ntargs * sizeof(d->targs[0]));
		d->gen = gen;
	}
	d->nsaved = base;
}

/* L <type> <value> E, L _Z <encoding> E */
static int expr_primary(struct dm *d)
{
	int t, n;
	const char *digits;

	if (!eat(d, 'L'))
		return fail(d);
	/* An entity: L_Z <encoding> E, or LZ <encoding> E as older g++ wrote it. */
	if ((peek(d) == '_' && peek_at(d, 1) == 'Z') || peek(d) == 'Z') {
		unsigned base, gen = d->gen;
		struct name_info info = { 0 };

		/* An entity's own template arguments do not change the enclosing ones. */
		if (targs_save(d, &base) != 0)
			return -1;
		d->p += peek(d) == 'Z' ? 1 : 2;
		n = encoding(d, &info);
		targs_restore(d, base, gen, 1);
		return n >= 0 && eat(d, 'E') ? n : fail(d);
	}
	/* Integer and boolean values, of a builtin or an enumeration type. */
	switch (peek(d)) {
	case 'v': case 'f': case 'd': case 'e': case 'g': case 'z': case 'D': case 'u': case 0:
		return fail(d); /* void, floating point, D-types, vendor types */
	default:
		break;
	}
	t = type(d);
	if (t < 0 || d->nodes[t].kind == K_TPARAM)
		return fail(d);
	n = node(d, K_LITERAL, t, -1);
	if (n < 0)
		return -1;
	if (eat(d, 'n'))
		d->nodes[n].flags = F_NEG;
	digits = d->p;
	while (is_digit(peek(d)))
		d->p++;
	if (d->p == digits || !eat(d, 'E'))
		return fail(d);
	d->nodes[n].s = digits;
	d->nodes[n].n = (unsigned)(d->p - 1 - digits);
	return n;
}

static int template_arg(struct dm *d);

/* The expressions kernel names use as template arguments: a template parameter, a literal,
   an address (&function, &Class::member), a pack expansion. Any other fails the name. */
static int expression(struct dm *d)
{
	int r = -1;

	if (!enter(d))
		return -1;
	if (peek(d) == 'T') {
		r = template_param(d);
	} else if (peek(d) == 'L') {
		r = expr_primary(d);
	} else if (peek(d) == 'a' && peek_at(d, 1) == 'd' && peek_at(d, 2) == 'L') {
		/* The address of an entity (L_Z...E); of anything else it is not handled. */
		d->p += 2;
		r = expr_primary(d);
		r = r < 0 ? -1 : node(d, K_ADDR, r, -1);
	} else if (peek(d) == 's' && peek_at(d, 1) == 'p') {
		d->p += 2;
		d->in_expansion++;
		r = expression(d);
		d->in_expansion--;
		/* Of a parameter pack only (spT0_). */
		if (r >= 0 && (d->nodes[r].kind != K_TPARAM || pkind(d, r) != K_PACK))
			r = fail(d);
		r = r < 0 ? -1 : node(d, K_PACKEXP, r, -1);
	} else {
		r = fail(d);
	}
	return leave(d, r);
}

static int arg_list(struct dm *d, int *out_first)
{
	int first = -1, last = -1;

	while (!d->failed && !eat(d, 'E')) {
		int a = template_arg(d), item;

		item = node(d, K_ITEM, a, -1);
		if (a < 0 || item < 0)
			return fail(d);
		if (last >= 0)
			d->nodes[last].b = item;
		else
			first = item;
		last = item;
		if (d->p >= d->end)
			return fail(d);
	}
	*out_first = first;
	return d->failed ? -1 : 0;
}

static int template_arg(struct dm *d)
{
	int r = -1, list = -1;

	if (!enter(d))
		return -1;
	switch (peek(d)) {
	case 'L':
		r = expr_primary(d);
		break;
	case 'J':
		d->p++;
		if (arg_list(d, &list) == 0)
			r = node(d, K_PACK, list, -1);
		break;
	case 'X':
		d->p++;
		r = expression(d);
		if (r >= 0 && !eat(d, 'E'))
			r = fail(d);
		break;
	default:
		r = type(d);
		break;
	}
	return leave(d, r);
}

/* I <template-arg>+ E. tag: the arguments of an encoding's name, which its T_ refer to. */
static int template_args(struct dm *d, int tag)
{
	int first = -1;

	if (!eat(d, 'I') || arg_list(d, &first) != 0)
		return fail(d);
	if (tag) {
		d->gen = ++d->next_gen;
		d->ntargs = 0;
		for (int it = first; it >= 0; it = d->nodes[it].b) {
			if (d->ntargs >= MAX_TARGS)
				return fail(d);
			d->targs[d->ntargs++] = d->nodes[it].a;
		}
	}
	return first < 0 ? node(d, K_ITEM, -1, -1) : first;
}

/* The last source name of a prefix: what a constructor or destructor is called. */
static int ctor_name(struct dm *d, int prefix)
{
	for (int guard = 0; prefix >= 0 && guard < MAX_DEPTH; guard++) {
		const struct node *n = &d->nodes[prefix];

		switch (n->kind) {
		case K_NAME:
			return n->s[0] == '(' || memchr(n->s, ':', n->n) ? fail(d) : prefix;
		case K_NESTED:
			prefix = n->b;
			break;
		case K_TEMPLATE:
		case K_ABITAG:
		case K_TPARAM:
			prefix = n->a;
			break;
		default:
			return fail(d);
		}
	}
	return fail(d);
}

static int cv_qualifiers(struct dm *d)
{
	int q = 0;

	if (eat(d, 'r'))
		q |= Q_RESTRICT;
	if (eat(d, 'V'))
		q |= Q_VOLATILE;
	if (eat(d, 'K'))
		q |= Q_CONST;
	return q;
}

/* Whether a node can be the scope of a nested name: a namespace's or class's name. */
static int scope_like(const struct dm *d, int n)
{
	int k = pkind(d, n);

	if (k == K_NAME)
		return d->nodes[strip(d, n)].flags != F_BUILTIN;
	return k == K_NESTED || k == K_TEMPLATE || k == K_ABITAG || k == K_LOCAL || k == K_UNNAMED ||
	       k == K_LAMBDA;
}

/* A template's name in a nested name: a scope's, or an operator's, a constructor's, a
   conversion's (the last component, as written). */
static int scope_like_or_ctor(const struct dm *d, int n)
{
	int last = n;

	if (pkind(d, n) == K_NESTED)
		last = d->nodes[strip(d, n)].b;
	last = strip(d, last);
	while (last >= 0 && d->nodes[last].kind == K_ABITAG)
		last = d->nodes[last].a;
	return scope_like(d, n) || (last >= 0 && (d->nodes[last].kind == K_OPER ||
						  d->nodes[last].kind == K_CTOR ||
						  d->nodes[last].kind == K_CONV));
}

static int nested_name(struct dm *d, int tag, struct name_info *info)
{
	int so_far = -1, pushed = 0;

	int entity = d->entity_next;

	d->entity_next = 0;
	if (!eat(d, 'N'))
		return fail(d);
	info->cv = (unsigned)cv_qualifiers(d);
	if (eat(d, 'R'))
		info->ref = REF_L;
	else if (eat(d, 'O'))
		info->ref = REF_R;
	while (!d->failed && !eat(d, 'E')) {
		int c, part;

		int after_args = info->template_args;

		pushed = 1;
		eat(d, 'L');
		c = peek(d);
		if (c != 'I')
			info->no_return = 0;
		info->template_args = 0;
		if (c == 0)
			return fail(d);
		if (c == 'T') {
			if (so_far >= 0)
				return fail(d);
			so_far = template_param(d);
			if (so_far >= 0 && !scope_like(d, so_far))
				return fail(d);
		} else if (c == 'I') {
			int args;

			/* Arguments follow a template's name, once. */
			if (so_far < 0 || after_args || !scope_like_or_ctor(d, so_far))
				return fail(d);
			args = template_args(d, tag);
			so_far = node(d, K_TEMPLATE, so_far, args);
			info->template_args = 1;
		} else if (c == 'S' && peek_at(d, 1) == 't') {
			if (so_far >= 0)
				return fail(d);
			d->p += 2;
			part = unqualified_name(d, info);
			so_far = node(d, K_NESTED, text(d, K_NAME, "std", 3), part);
		} else if (c == 'S') {
			if (so_far >= 0)
				return fail(d);
			so_far = substitution(d, 1);
			pushed = 0;
			if (so_far >= 0 && !scope_like(d, so_far))
				return fail(d);
		} else if (c == 'C' || (c == 'D' && peek_at(d, 1) >= '0' && peek_at(d, 1) <= '5')) {
			int cls;

			/* C1-C5 and D0-D5 but D3: complete, base, allocating, and g++'s unified
			   (4) and comdat (5) ones all print as the class's name. */
			if (so_far < 0 || !(peek_at(d, 1) >= '0' && peek_at(d, 1) <= '5') ||
			    (c == 'C' && peek_at(d, 1) == '0') || (c == 'D' && peek_at(d, 1) == '3'))
				return fail(d);
			d->p += 2;
			cls = ctor_name(d, so_far);
			part = node(d, K_CTOR, cls, -1);
			if (part >= 0 && c == 'D')
				d->nodes[part].flags = F_DTOR;
			part = abi_tags(d, part);
			so_far = node(d, K_NESTED, so_far, part);
			info->no_return = 1;
		} else if (c == 'D') {
			return fail(d); /* decltype, structured bindings */
		} else {
			/* An unnamed type or closure has a scope before it, but in a local name's
			   entity, whose scope is the function. */
			if (so_far < 0 && c == 'U' && !entity)
				return fail(d);
			part = unqualified_name(d, info);
			so_far = so_far < 0 ? part : node(d, K_NESTED, so_far, part);
		}
		if (so_far < 0)
			return fail(d);
		if (pushed)
			push_sub(d, so_far);
		if (d->p >= d->end)
			return fail(d);
	}
	/* The whole name is no candidate: a type's is added by the type, a function's never. */
	if (so_far < 0 || !pushed || d->failed)
		return fail(d);
	d->nsubs--;
	return so_far;
}

static int local_name(struct dm *d, int tag, struct name_info *info)
{
	struct name_info inner = { 0 };
	int enc, entity;
	unsigned base, gen = d->gen;

	if (!eat(d, 'Z'))
		return fail(d);
	/* A local name used as a type: its function's template arguments are its own, not
	   those the enclosing signature's parameters refer to. */
	if (targs_save(d, &base) != 0)
		return -1;
	d->in_local++;
	enc = encoding(d, &inner);
	d->in_local--;
	if (enc < 0 || !eat(d, 'E'))
		return fail(d);
	if (eat(d, 's')) {
		entity = text(d, K_STRLIT, "string literal", 14);
	} else if (peek(d) == 'd' || peek(d) == 'Z') {
		return fail(d); /* a default argument's entity; a local name in a local name */
	} else {
		d->entity_next = 1;
		entity = name(d, tag, info);
		d->entity_next = 0;
	}
	targs_restore(d, base, gen, !tag);
	/* The discriminator: _ <digit>, or __ <number> _; not printed. */
	if (peek(d) == '_') {
		unsigned long v;

		d->p++;
		if (eat(d, '_')) {
			if (number(d, &v) != 0 || !eat(d, '_'))
				return fail(d);
		} else if (!is_digit(peek(d))) {
			return fail(d);
		} else {
			d->p++;
		}
	}
	return node(d, K_LOCAL, enc, entity);
}

/* <name>. tag: it is an encoding's name, whose template arguments its signature refers to. */
static int name(struct dm *d, int tag, struct name_info *info)
{
	int n = -1, c, entity = d->entity_next;

	if (!enter(d))
		return -1;
	c = peek(d);
	info->template_args = 0;
	if (c != 'N')
		d->entity_next = 0; /* nested_name reads and clears it */
	if (c == 'N') {
		n = nested_name(d, tag, info);
	} else if (c == 'Z') {
		n = local_name(d, tag, info);
	} else {
		if (c == 'S' && peek_at(d, 1) != 't') {
			n = substitution(d, 0);
			if (peek(d) != 'I' || (n >= 0 && !scope_like(d, n)))
				return leave(d, fail(d));
		} else {
			int std = c == 'S' && (d->p += 2, 1);

			/* An unnamed type or closure stands inside a scope (a local name's
			   function, for its entity), never alone. */
			if (c == 'U' && !entity)
				return leave(d, fail(d));
			eat(d, 'L');
			n = unqualified_name(d, info);
			if (std)
				n = node(d, K_NESTED, text(d, K_NAME, "std", 3), n);
			if (peek(d) == 'I')
				push_sub(d, n);
		}
		if (n >= 0 && peek(d) == 'I') {
			int args = template_args(d, tag);

			n = node(d, K_TEMPLATE, n, args);
			info->template_args = 1;
		}
	}
	return leave(d, n);
}

/* Whether a type wraps its declarator: a pointer or reference to a function or an array, or a
   member pointer. */
static int declarator_inside(const struct dm *d, int n)
{
	for (int i = 0; i < MAX_DEPTH && (n = strip(d, n)) >= 0; i++) {
		switch (d->nodes[n].kind) {
		case K_FUNC:
		case K_ARRAY:
		case K_PTRMEM:
			return 1;
		case K_PTR:
		case K_LREF:
		case K_RREF:
		case K_QUAL:
			n = d->nodes[n].a;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* F [Y] <return type> <parameters> [<ref-qualifier>] E, with the cv-qualifiers before it. */
static int function_type(struct dm *d, unsigned cv)
{
	int f, ret, params;

	if (!eat(d, 'F'))
		return fail(d);
	eat(d, 'Y');
	ret = type(d);
	/* A function returns neither a function nor an array (nor a pack). */
	if (ret < 0 || pkind(d, ret) == K_FUNC || pkind(d, ret) == K_ARRAY || pkind(d, ret) == K_PACKEXP)
		return fail(d);
	params = type_list(d, 1);
	if (d->failed)
		return -1;
	f = node(d, K_FUNC, ret, params);
	if (f < 0)
		return -1;
	d->nodes[f].flags = (unsigned char)cv;
	if (eat(d, 'R'))
		d->nodes[f].ref = REF_L;
	else if (eat(d, 'O'))
		d->nodes[f].ref = REF_R;
	/* A member function returning a pointer to a function, an array or a member: libstdc++
	   puts the qualifiers elsewhere; not handled. */
	if ((cv || d->nodes[f].ref) && declarator_inside(d, ret))
		return fail(d);
	return eat(d, 'E') ? f : fail(d);
}

static int builtin(struct dm *d)
{
	static const char *const plain[26] = {
		['a' - 'a'] = "signed char", ['b' - 'a'] = "bool", ['c' - 'a'] = "char",
		['d' - 'a'] = "double", ['e' - 'a'] = "long double", ['f' - 'a'] = "float",
		['g' - 'a'] = "__float128", ['h' - 'a'] = "unsigned char", ['i' - 'a'] = "int",
		['j' - 'a'] = "unsigned int", ['l' - 'a'] = "long", ['m' - 'a'] = "unsigned long",
		['n' - 'a'] = "__int128", ['o' - 'a'] = "unsigned __int128", ['s' - 'a'] = "short",
		['t' - 'a'] = "unsigned short", ['v' - 'a'] = "void", ['w' - 'a'] = "wchar_t",
		['x' - 'a'] = "long long", ['y' - 'a'] = "unsigned long long", ['z' - 'a'] = "...",
	};
	int c = peek(d);

	if (!is_lower(c) || !plain[c - 'a'])
		return -2;
	d->p++;
	{
		int n = text(d, K_NAME, plain[c - 'a'], strlen(plain[c - 'a']));

		if (n >= 0)
			d->nodes[n].flags = F_BUILTIN; /* not a class that happens to be called "int" */
		return n;
	}
}

/* D-prefixed builtins; -2 when it is no builtin. */
static int d_builtin(struct dm *d)
{
	static const struct {
		char c;
		const char *name;
	} table[] = {
		{ 'a', "auto" },     { 'c', "decltype(auto)" }, { 'd', "decimal64" },
		{ 'e', "decimal128" }, { 'f', "decimal32" },    { 'h', "half" },
		{ 'i', "char32_t" }, { 's', "char16_t" },       { 'u', "char8_t" },
		{ 'n', "decltype(nullptr)" },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (peek_at(d, 1) == table[i].c) {
			d->p += 2;
			return text(d, K_NAME, table[i].name, strlen(table[i].name));
		}
	}
	return -2;
}

static int is_reference(const struct dm *d, int n)
{
	return pkind(d, n) == K_LREF || pkind(d, n) == K_RREF;
}

static int type_body(struct dm *d)
{
	int c = peek(d), t, inner, member = d->member_next;
	unsigned long dim;
	const char *s;

	d->member_next = 0;
	switch (c) {
	case 'r':
	case 'V':
	case 'K': {
		unsigned q = (unsigned)cv_qualifiers(d);

		/* Each qualifier once, in the ABI's order (r V K). */
		if (peek(d) == 'r' || peek(d) == 'V' || peek(d) == 'K')
			return fail(d);
		/* A qualified function type is a member function's, under M only. */
		if (peek(d) == 'F')
			return member ? push_sub(d, function_type(d, q)) : fail(d);
		inner = type(d);
		if (inner < 0 || is_reference(d, inner) || pkind(d, inner) == K_FUNC ||
		    pkind(d, inner) == K_ARRAY || pkind(d, inner) == K_PACKEXP ||
		    (pkind(d, inner) == K_PACK && !d->in_expansion))
			return fail(d);
		t = node(d, K_QUAL, inner, -1);
		if (t >= 0)
			d->nodes[t].flags = (unsigned char)q;
		return push_sub(d, t);
	}
	case 'P':
	case 'R':
	case 'O':
		d->p++;
		inner = type(d);
		/* A pointer to a reference is no type; a reference to one collapses (printer)
		   where a template parameter stands for it, and is no type where written. */
		if (inner < 0 || (c == 'P' && is_reference(d, inner)) || pkind(d, inner) == K_PACKEXP ||
		    (d->nodes[inner].kind == K_LREF || d->nodes[inner].kind == K_RREF) ||
		    (pkind(d, inner) == K_PACK && !d->in_expansion) ||
		    (pkind(d, inner) == K_FUNC &&
		     (d->nodes[strip(d, inner)].flags || d->nodes[strip(d, inner)].ref)))
			return fail(d);
		return push_sub(d, node(d, c == 'P' ? K_PTR : c == 'R' ? K_LREF : K_RREF, inner, -1));
	case 'F':
		t = function_type(d, 0);
		if (t >= 0 && d->nodes[t].ref && !member)
			return fail(d);
		return push_sub(d, t);
	case 'A':
		d->p++;
		s = d->p;
		if (number(d, &dim) != 0 || !eat(d, '_'))
			return fail(d);
		inner = type(d);
		if (inner < 0 || pkind(d, inner) == K_FUNC || pkind(d, inner) == K_PACK ||
		    pkind(d, inner) == K_PACKEXP)
			return fail(d);
		t = node(d, K_ARRAY, inner, -1);
		if (t >= 0) {
			d->nodes[t].s = s;
			d->nodes[t].n = (unsigned)(d->p - s);
			while (d->nodes[t].n && !is_digit(s[d->nodes[t].n - 1]))
				d->nodes[t].n--;
			/* the digits only: up to the '_' */
			for (unsigned k = 0; k < d->nodes[t].n; k++)
				if (!is_digit(s[k])) {
					d->nodes[t].n = k;
					break;
				}
		}
		return push_sub(d, t);
	case 'M':
		d->p++;
		t = type(d);
		d->member_next = 1;
		inner = type(d);
		d->member_next = 0;
		/* The class is a class's name; the member no member pointer itself. */
		if (t < 0 || inner < 0 || pkind(d, inner) == K_PACK || pkind(d, inner) == K_PTRMEM ||
		    pkind(d, inner) == K_PACKEXP || pkind(d, t) == K_PACKEXP ||
		    (pkind(d, t) != K_NAME && pkind(d, t) != K_NESTED && pkind(d, t) != K_TEMPLATE &&
		     pkind(d, t) != K_LOCAL && pkind(d, t) != K_ABITAG) ||
		    d->nodes[strip(d, t)].flags == F_BUILTIN)
			return fail(d);
		return push_sub(d, node(d, K_PTRMEM, t, inner));
	case 'T':
		if (peek_at(d, 1) != '_' && !is_digit(peek_at(d, 1)))
			return fail(d);
		t = push_sub(d, template_param(d));
		if (t >= 0 && peek(d) == 'I') {
			int args;

			/* A template template parameter stands for a template's name. */
			if (pkind(d, t) != K_NAME && pkind(d, t) != K_NESTED)
				return fail(d);
			args = template_args(d, 0);

			t = push_sub(d, node(d, K_TEMPLATE, t, args));
		}
		return t;
	case 'D':
		if (peek_at(d, 1) == 'p') {
			d->p += 2;
			d->in_expansion++;
			inner = type(d);
			d->in_expansion--;
			/* The patterns kernel names use: a parameter pack, maybe under *, &, && and
			   cv-qualifiers (DpT_, DpRKT_, DpOT_). */
			for (t = inner; t >= 0 && (d->nodes[t].kind == K_PTR || d->nodes[t].kind == K_LREF ||
						   d->nodes[t].kind == K_RREF || d->nodes[t].kind == K_QUAL);)
				t = d->nodes[t].a;
			if (t < 0 || d->nodes[t].kind != K_TPARAM || pkind(d, t) != K_PACK)
				return fail(d);
			return push_sub(d, node(d, K_PACKEXP, inner, -1));
		}
		t = d_builtin(d);
		return t == -2 ? fail(d) : t;
	case 'S':
		if (peek_at(d, 1) == 't') {
			struct name_info info = { 0 };

			return push_sub(d, name(d, 0, &info));
		}
		t = substitution(d, 0);
		if (t >= 0 && peek(d) == 'I') {
			int args;

			if (!scope_like(d, t))
				return fail(d);
			args = template_args(d, 0);

			t = push_sub(d, node(d, K_TEMPLATE, t, args));
		}
		return t;
	case 'u':
		d->p++;
		return push_sub(d, source_name(d));
	case 'N':
	case 'Z':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9': {
		struct name_info info = { 0 };

		t = name(d, 0, &info);
		/* A type's name carries no member function's qualifiers. */
		return info.cv || info.ref ? fail(d) : push_sub(d, t);
	}
	default:
		t = builtin(d);
		return t == -2 ? fail(d) : t;
	}
}

static int type(struct dm *d)
{
	if (!enter(d))
		return -1;
	return leave(d, type_body(d));
}

/* T <call-offset> or G prefixed names: vtables, typeinfo, thunks, guard variables. */
static int call_offset(struct dm *d)
{
	unsigned long v;
	int c = peek(d);

	if (c != 'h' && c != 'v')
		return -1;
	d->p++;
	for (int k = 0; k < (c == 'h' ? 1 : 2); k++) {
		eat(d, 'n');
		if (number(d, &v) != 0 || !eat(d, '_'))
			return -1;
	}
	return 0;
}

static int special(struct dm *d, const char *what, int inner)
{
	int n = inner < 0 ? -1 : node(d, K_SPECIAL, inner, -1);

	if (n >= 0) {
		d->nodes[n].s = what;
		d->nodes[n].n = (unsigned)strlen(what);
	}
	return n;
}

/* A variable's name: no member function's qualifiers. */
static int plain_name(struct dm *d, struct name_info *info)
{
	int n = name(d, 0, info);

	return info->cv || info->ref ? fail(d) : n;
}

static int special_name(struct dm *d)
{
	struct name_info info = { 0 };
	int c0 = peek(d), c1 = peek_at(d, 1);

	d->p += 2;
	if (c0 == 'T') {
		switch (c1) {
		case 'V': return special(d, "vtable for ", type(d));
		case 'T': return special(d, "VTT for ", type(d));
		case 'I': return special(d, "typeinfo for ", type(d));
		case 'S': return special(d, "typeinfo name for ", type(d));
		case 'H': return special(d, "TLS init function for ", plain_name(d, &info));
		case 'W': return special(d, "TLS wrapper function for ", plain_name(d, &info));
		case 'h':
		case 'v':
			d->p--;
			if (call_offset(d) != 0)
				return fail(d);
			return special(d, c1 == 'h' ? "non-virtual thunk to " : "virtual thunk to ",
				       encoding(d, &info));
		default:
			return fail(d);
		}
	}
	if (c1 == 'V')
		return special(d, "guard variable for ", plain_name(d, &info));
	return fail(d);
}

/* <encoding>: a function's name and type, a data name, or a special name. */
static int encoding(struct dm *d, struct name_info *info)
{
	int n, f, ret = -1, params;

	if (!enter(d))
		return -1;
	if ((peek(d) == 'T' && peek_at(d, 1) != '_' && !is_digit(peek_at(d, 1))) ||
	    (peek(d) == 'G' && peek_at(d, 1) == 'V'))
		return leave(d, special_name(d));
	n = name(d, 1, info);
	if (n < 0)
		return leave(d, -1);
	if (peek(d) == 0 || peek(d) == 'E' || peek(d) == '.') {
		/* Data, or the unmangled main of a local name; a qualified one is no data. */
		return leave(d, info->cv || info->ref ? fail(d) : n);
	}
	if (info->template_args && !info->no_return) {
		ret = type(d);
		/* A function returns neither a function nor an array (nor a pack). */
		if (ret < 0 || pkind(d, ret) == K_ARRAY || pkind(d, ret) == K_FUNC ||
		    pkind(d, ret) == K_PACKEXP)
			return leave(d, fail(d));
	}
	params = type_list(d, 0);
	if (d->failed)
		return leave(d, -1);
	f = node(d, K_FUNC, ret, params);
	if (f < 0)
		return leave(d, -1);
	d->nodes[f].flags = (unsigned char)info->cv;
	d->nodes[f].ref = (unsigned char)info->ref;
	return leave(d, node(d, K_ENCODING, n, f));
}

/* ---------------------------------------------------------------- printer */

struct out {
	const struct dm *d;
	char *p;
	size_t len, cap;
	int failed, depth;
	int pack_index; /* inside a pack expansion: the element printed; -1 outside */
	unsigned long steps;
	/* libstdc++ prints through a 256-byte buffer and can take back a ", " only while it is
	   still in there: where it flushes decides the text of a list that ends in empty packs. */
	unsigned buf_len;
	unsigned long flushes;
	char last; /* the last character written; a ", " taken back leaves its space here */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->failed || n > o->cap - o->len) {
		o->failed = 1;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	if (n)
		o->last = s[n - 1];
	for (size_t i = 0; i < n; i++) {
		if (o->buf_len == 255) {
			o->buf_len = 0;
			o->flushes++;
		}
		o->buf_len++;
	}
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* The last character libstdc++ wrote: the space of a ", " it took back counts ("A<B<int>>"
   for A<B<int, <empty>>>, where a "> >" would otherwise be). */
static char last_char(const struct out *o)
{
	return o->last;
}

static void put_num(struct out *o, unsigned v)
{
	char tmp[12];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, tmp + i, sizeof(tmp) - (size_t)i);
}

static void print(struct out *o, int n);
static void print_left(struct out *o, int n);
static void print_right(struct out *o, int n);

/* What a template parameter stands for. One that names a pack outside a pack expansion
   prints as libstdc++ does not say plainly (its first element, or nothing): not handled. */
static int strip_for_print(struct out *o, int n)
{
	int t = strip(o->d, n);

	if (n >= 0 && o->d->nodes[n].kind == K_TPARAM && t >= 0 &&
	    o->d->nodes[t].kind == K_PACK && o->pack_index < 0) {
		o->failed = 1;
		return -1;
	}
	return t;
}

static int guard(struct out *o, int n)
{
	if (o->failed || n < 0 || ++o->steps > MAX_STEPS || o->depth >= PRINT_DEPTH) {
		o->failed = 1;
		return 0;
	}
	o->depth++;
	return 1;
}

/* Items of a list separated by ", ". An element that prints nothing (an empty pack) keeps
   its separator, except in a run of such elements at the end: the list "int, <empty>" is
   "int", "<empty>, int" is ", int" (libstdc++ takes a ", " back when all that follows it
   printed nothing, and its buffer was not flushed meanwhile). Returns 1 when the list ended
   in such a run: libstdc++ then holds the space of ", " as the last character it wrote
   ("A<int>>" for A<int, <empty>>). */
static int print_list(struct out *o, int item)
{
	/* The run of separators at the end: each followed by an element that printed nothing,
	   so they lie 2 bytes apart, the last ending at o->len; libstdc++ can take back those
	   put since its last flush (the last 'same' of them: flushes only grow). Three numbers,
	   not a table of positions: no array in a frame of the printer's recursion. */
	unsigned nrun = 0, same = 0;
	unsigned long last_flushes = 0;

	for (int i = 0; item >= 0 && !o->failed; i++) {
		const struct node *it = &o->d->nodes[item];
		size_t mark;

		if (it->a < 0)
			break;
		if (i) {
			/* libstdc++ flushes first so that ", " stays in its buffer. */
			if (o->buf_len >= 254) {
				o->buf_len = 0;
				o->flushes++;
			}
			puts_(o, ", ");
			same = nrun > 0 && o->flushes == last_flushes ? same + 1 : 1;
			last_flushes = o->flushes;
			nrun++;
		}
		mark = o->len;
		print(o, it->a);
		if (o->len != mark)
			nrun = same = 0;
		item = it->b;
	}
	if (o->failed)
		return 0;
	if (nrun > 0 && o->flushes == last_flushes) {
		o->len -= 2 * (size_t)same;
		o->buf_len -= 2 * same;
	}
	return nrun > 0;
}

static void print_quals(struct out *o, unsigned q)
{
	if (q & Q_CONST)
		puts_(o, " const");
	if (q & Q_VOLATILE)
		puts_(o, " volatile");
	if (q & Q_RESTRICT)
		puts_(o, " restrict");
}

/* Inside a pack expansion being printed, a pack stands for its current element. */
static int resolve(const struct out *o, int n)
{
	n = strip(o->d, n);
	if (n >= 0 && o->d->nodes[n].kind == K_PACK && o->pack_index >= 0) {
		int it = o->d->nodes[n].a;

		for (int i = 0; i < o->pack_index && it >= 0; i++)
			it = o->d->nodes[it].b;
		return it >= 0 ? strip(o->d, o->d->nodes[it].a) : -1;
	}
	return n;
}

static int kind_of(const struct out *o, int n)
{
	n = resolve(o, n);
	return n >= 0 ? o->d->nodes[n].kind : -1;
}

/* A reference to a reference: & wins over &&. Returns the referred type, *kind the
   reference that remains. */
static int collapse(const struct out *o, int n, int *kind)
{
	int inner = resolve(o, o->d->nodes[n].a);

	*kind = o->d->nodes[n].kind;
	for (int i = 0; i < MAX_DEPTH && (kind_of(o, inner) == K_LREF || kind_of(o, inner) == K_RREF); i++) {
		if (kind_of(o, inner) == K_LREF)
			*kind = K_LREF;
		inner = resolve(o, o->d->nodes[inner].a);
	}
	return inner;
}

/* Whether a type prints a part after the declarator (a function's parameters, an array's
   bound), so that a pointer to it needs parentheses. */
static int has_right(const struct out *o, int n)
{
	for (int i = 0; (n = resolve(o, n)) >= 0 && i < MAX_DEPTH * 4; i++) {
		const struct node *x = &o->d->nodes[n];

		switch (x->kind) {
		case K_FUNC:
		case K_ARRAY:
			return 1;
		case K_PTR:
		case K_LREF:
		case K_RREF:
		case K_QUAL:
			n = x->a;
			break;
		case K_PTRMEM:
			n = x->b;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

/* The length of the pack an expansion's pattern names through a template parameter (the
   first one found), -1 when it names none; a parameter's own value is not looked into.
   Its levels and the printer's below it count against PRINT_DEPTH together. */
static int count_pack(struct out *o, int n, int depth)
{
	const struct node *x;
	int r;

	if (n < 0 || depth >= PRINT_DEPTH || ++o->steps > MAX_STEPS)
		return -1;
	x = &o->d->nodes[n];
	if (x->kind == K_TPARAM) {
		int t = strip(o->d, n), c = 0;

		if (t < 0 || o->d->nodes[t].kind != K_PACK)
			return -1;
		for (int it = o->d->nodes[t].a; it >= 0 && o->d->nodes[it].a >= 0; it = o->d->nodes[it].b)
			c++;
		return c;
	}
	/* A nested expansion, or a pack written out in the pattern: not handled. */
	if (x->kind == K_PACKEXP || x->kind == K_PACK) {
		o->failed = 1;
		return -1;
	}
	/* a and b are node indexes or -1 in every other kind. */
	r = count_pack(o, x->a, depth + 1);
	return r >= 0 ? r : count_pack(o, x->b, depth + 1);
}

/* Whether a subtree holds a pack, directly or through a template parameter. */
static int has_pack(struct out *o, int n, int depth)
{
	const struct node *x;

	if (n < 0 || depth >= PRINT_DEPTH || ++o->steps > MAX_STEPS)
		return n >= 0;
	x = &o->d->nodes[n];
	if (x->kind == K_PACK || x->kind == K_PACKEXP)
		return 1;
	return has_pack(o, x->a, depth + 1) || has_pack(o, x->b, depth + 1);
}

static void print_pack(struct out *o, const struct node *x)
{
	if (o->pack_index >= 0) {
		int it = x->a;

		for (int i = 0; i < o->pack_index && it >= 0; i++)
			it = o->d->nodes[it].b;
		if (it < 0 || o->d->nodes[it].a < 0) {
			o->failed = 1;
			return;
		}
		/* The element's own packs are whole lists, not this expansion's. */
		{
			int saved = o->pack_index;

			o->pack_index = -1;
			print(o, o->d->nodes[it].a);
			o->pack_index = saved;
		}
		return;
	}
	print_list(o, x->a);
}

/* An element of the pack being expanded, reached past a pointer or reference, must hold no
   pack of its own: it is printed with the expansion's index still set. */
static int nested_pack(struct out *o, int n)
{
	int t = strip(o->d, n);

	return t >= 0 && o->d->nodes[t].kind == K_PACK && o->pack_index >= 0 &&
	       has_pack(o, resolve(o, n), o->depth);
}

static void print_expansion(struct out *o, const struct node *x)
{
	int count = count_pack(o, x->a, o->depth), saved = o->pack_index;

	if (count < 0 || saved >= 0) {
		o->failed = 1;
		return;
	}
	for (int i = 0; i < count && !o->failed; i++) {
		if (i)
			puts_(o, ", ");
		o->pack_index = i;
		print(o, x->a);
	}
	o->pack_index = saved;
}

static void print_literal(struct out *o, const struct node *x)
{
	const struct node *t = &o->d->nodes[x->a];
	static const struct {
		const char *type, *suffix;
	} ints[] = { { "int", "" }, { "unsigned int", "u" }, { "long", "l" }, { "unsigned long", "ul" },
		     { "long long", "ll" }, { "unsigned long long", "ull" } };

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (t->kind == K_NAME && t->flags == F_BUILTIN && t->n == strlen(ints[i].type) &&
		    memcmp(t->s, ints[i].type, t->n) == 0) {
			if (x->flags & F_NEG)
				put(o, "-", 1);
			put(o, x->s, x->n);
			puts_(o, ints[i].suffix);
			return;
		}
	}
	if (t->kind == K_NAME && t->flags == F_BUILTIN && t->n == 4 && memcmp(t->s, "bool", 4) == 0 && x->n == 1 &&
	    !(x->flags & F_NEG) && (x->s[0] == '0' || x->s[0] == '1')) {
		puts_(o, x->s[0] == '1' ? "true" : "false");
		return;
	}
	put(o, "(", 1);
	print(o, x->a);
	put(o, ")", 1);
	if (x->flags & F_NEG)
		put(o, "-", 1);
	put(o, x->s, x->n);
}

static void print_function_right(struct out *o, const struct node *f)
{
	put(o, "(", 1);
	print_list(o, f->b);
	put(o, ")", 1);
	if (f->a >= 0)
		print_right(o, f->a);
	print_quals(o, f->flags);
	if (f->ref == REF_L)
		puts_(o, " &");
	else if (f->ref == REF_R)
		puts_(o, " &&");
}

static void print_encoding(struct out *o, const struct node *x, int with_return)
{
	const struct node *f = &o->d->nodes[x->b];

	if (f->a >= 0 && with_return) {
		print_left(o, f->a);
		if (!has_right(o, f->a))
			put(o, " ", 1);
	}
	print(o, x->a);
	if (f->a >= 0 && !with_return) {
		/* print_function_right prints the return type's right part: not here. */
		put(o, "(", 1);
		print_list(o, f->b);
		put(o, ")", 1);
		print_quals(o, f->flags);
		if (f->ref == REF_L)
			puts_(o, " &");
		else if (f->ref == REF_R)
			puts_(o, " &&");
		return;
	}
	print_function_right(o, f);
}

static void print_left(struct out *o, int n)
{
	const struct node *x;

	n = strip_for_print(o, n);
	if (!guard(o, n))
		return;
	x = &o->d->nodes[n];
	switch (x->kind) {
	case K_QUAL: {
		/* Qualifiers on a qualified type (a template parameter's or a pack element's):
		   the inner ones first ("int restrict const"), each qualifier once. */
		unsigned char groups[16];
		int inner = resolve(o, x->a), ngroups = 1;
		unsigned done = 0;

		groups[0] = x->flags;
		for (; kind_of(o, inner) == K_QUAL && ngroups < 16; ngroups++) {
			groups[ngroups] = o->d->nodes[inner].flags;
			inner = resolve(o, o->d->nodes[inner].a);
		}
		if (kind_of(o, inner) == K_QUAL || kind_of(o, inner) == K_LREF ||
		    kind_of(o, inner) == K_RREF || kind_of(o, inner) == K_FUNC ||
		    kind_of(o, inner) == K_ARRAY || nested_pack(o, x->a)) {
			o->failed = 1;
			break;
		}
		print_left(o, inner);
		/* Innermost first; a qualifier an outer group repeats is printed there only. */
		for (int g = ngroups - 1; g >= 0; g--) {
			done = 0;
			for (int h = 0; h < g; h++)
				done |= groups[h];
			print_quals(o, groups[g] & ~done);
		}
		break;
	}
	case K_PTR:
	case K_LREF:
	case K_RREF: {
		int ref = x->kind, inner = x->kind == K_PTR ? resolve(o, x->a) : collapse(o, n, &ref);
		int k = kind_of(o, inner);

		/* A pack's element that wraps its declarator: libstdc++ prints it differently. */
		int from_pack = pkind(o->d, x->a) == K_PACK;

		if ((x->kind == K_PTR && (k == K_LREF || k == K_RREF)) || nested_pack(o, x->a) ||
		    (from_pack && (k == K_ARRAY || k == K_FUNC || k == K_PTRMEM))) {
			o->failed = 1;
			break;
		}
		print_left(o, inner);
		if (k == K_ARRAY) {
			puts_(o, " (");
		} else if (k == K_FUNC) {
			/* "int (*(*)())()" but "int (& (*)())()": libstdc++ spaces a parenthesis
			   that follows anything but '(', '*' or a space. */
			if (last_char(o) != '(' && last_char(o) != '*' && last_char(o) != ' ')
				put(o, " ", 1);
			put(o, "(", 1);
		}
		puts_(o, ref == K_PTR ? "*" : ref == K_LREF ? "&" : "&&");
		break;
	}
	case K_FUNC:
		if (x->a >= 0) {
			print_left(o, x->a);
			if (!has_right(o, x->a))
				put(o, " ", 1);
		}
		break;
	case K_ARRAY:
		print_left(o, x->a);
		break;
	case K_PTRMEM: {
		int k = kind_of(o, x->b);

		print_left(o, x->b);
		/* libstdc++'s spacing: "void (A::*)()", "int (A::*) [4]", "int A::*" (a space
		   after anything but '(', even after a space a name ends with). */
		if (k == K_FUNC) {
			if (last_char(o) != ' ')
				put(o, " ", 1);
			put(o, "(", 1);
		} else if (k == K_ARRAY) {
			put(o, " (", 2);
		} else if (last_char(o) != '(') {
			put(o, " ", 1);
		}
		print(o, x->a);
		puts_(o, "::*");
		break;
	}
	default:
		print(o, n);
		break;
	}
	o->depth--;
}

static void print_right(struct out *o, int n)
{
	const struct node *x;

	n = strip_for_print(o, n);
	if (!guard(o, n))
		return;
	x = &o->d->nodes[n];
	switch (x->kind) {
	case K_QUAL: {
		int inner = resolve(o, x->a);

		for (int i = 0; kind_of(o, inner) == K_QUAL && i < MAX_DEPTH; i++)
			inner = resolve(o, o->d->nodes[inner].a);
		print_right(o, inner);
		break;
	}
	case K_PTR:
	case K_LREF:
	case K_RREF: {
		int ref, inner = x->kind == K_PTR ? resolve(o, x->a) : collapse(o, n, &ref);

		if (kind_of(o, inner) == K_ARRAY || kind_of(o, inner) == K_FUNC)
			put(o, ")", 1);
		print_right(o, inner);
		break;
	}
	case K_PTRMEM:
		if (kind_of(o, x->b) == K_ARRAY || kind_of(o, x->b) == K_FUNC)
			put(o, ")", 1);
		print_right(o, x->b);
		break;
	case K_FUNC:
		print_function_right(o, x);
		break;
	case K_ARRAY: {
		/* "int [2][3]": one space before the outermost bound. */
		int inner = x->a;

		put(o, " [", 2);
		put(o, x->s, x->n);
		put(o, "]", 1);
		for (int i = 0; kind_of(o, inner) == K_ARRAY && i < MAX_DEPTH && !o->failed; i++) {
			const struct node *y = &o->d->nodes[resolve(o, inner)];

			put(o, "[", 1);
			put(o, y->s, y->n);
			put(o, "]", 1);
			inner = y->a;
		}
		print_right(o, inner);
		break;
	}
	default:
		break;
	}
	o->depth--;
}

static void print(struct out *o, int n)
{
	const struct node *x;

	n = strip_for_print(o, n);
	if (!guard(o, n))
		return;
	x = &o->d->nodes[n];
	switch (x->kind) {
	case K_NAME:
	case K_STRLIT:
		put(o, x->s, x->n);
		break;
	case K_NESTED:
		print(o, x->a);
		puts_(o, "::");
		print(o, x->b);
		break;
	case K_LOCAL:
		/* The enclosing function without its return type, as libstdc++ prints it. */
		if (o->d->nodes[x->a].kind == K_ENCODING)
			print_encoding(o, &o->d->nodes[x->a], 0);
		else
			print(o, x->a);
		puts_(o, "::");
		print(o, x->b);
		break;
	case K_TEMPLATE:
		print(o, x->a);
		if (last_char(o) == '<')
			put(o, " ", 1);
		put(o, "<", 1);
		print_list(o, x->b);
		if (last_char(o) == '>')
			put(o, " ", 1);
		put(o, ">", 1);
		break;
	case K_ITEM:
		print_list(o, n);
		break;
	case K_QUAL:
	case K_PTR:
	case K_LREF:
	case K_RREF:
	case K_FUNC:
	case K_ARRAY:
	case K_PTRMEM:
		print_left(o, n);
		print_right(o, n);
		break;
	case K_CTOR:
		if (x->flags & F_DTOR)
			put(o, "~", 1);
		print(o, x->a);
		break;
	case K_OPER:
		puts_(o, "operator");
		if (is_lower((unsigned char)x->s[0]))
			put(o, " ", 1);
		put(o, x->s, x->n);
		break;
	case K_CONV:
		puts_(o, "operator ");
		print(o, x->a);
		break;
	case K_ABITAG:
		print(o, x->a);
		puts_(o, "[abi:");
		put(o, x->s, x->n);
		put(o, "]", 1);
		break;
	case K_LAMBDA:
		puts_(o, "{lambda(");
		print_list(o, x->a);
		puts_(o, ")#");
		put_num(o, x->n);
		put(o, "}", 1);
		break;
	case K_UNNAMED:
		puts_(o, "{unnamed type#");
		put_num(o, x->n);
		put(o, "}", 1);
		break;
	case K_ENCODING:
		print_encoding(o, x, 1);
		break;
	case K_LITERAL:
		print_literal(o, x);
		break;
	case K_PACK:
		print_pack(o, x);
		break;
	case K_PACKEXP:
		print_expansion(o, x);
		break;
	case K_SPECIAL:
		put(o, x->s, x->n);
		print(o, x->a);
		break;
	case K_ADDR:
		/* "&f", "&A::x", but "&(f<int>)" and "&(void f(int))". */
		if (kind_of(o, x->a) != K_NAME && kind_of(o, x->a) != K_NESTED) {
			puts_(o, "&(");
			print(o, x->a);
			put(o, ")", 1);
		} else {
			put(o, "&", 1);
			print(o, x->a);
		}
		break;
	case K_CLONE:
		print(o, x->a);
		puts_(o, " [clone ");
		put(o, x->s, x->n);
		put(o, "]", 1);
		break;
	default:
		o->failed = 1;
		break;
	}
	o->depth--;
}

/* ---------------------------------------------------------------- entry */

/* .suffix after the encoding: a compiler's clone (".cold", ".isra.0", ".constprop.1"). */
static int clone_suffixes(struct dm *d, int n)
{
	while (n >= 0 && peek(d) == '.' &&
	       (is_lower(peek_at(d, 1)) || peek_at(d, 1) == '_' || is_digit(peek_at(d, 1)))) {
		const char *s = d->p;
		int c;

		d->p += 2;
		while (is_lower(c = peek(d)) || is_digit(c) || c == '_')
			d->p++;
		while (peek(d) == '.' && is_digit(peek_at(d, 1))) {
			d->p += 2;
			while (is_digit(peek(d)))
				d->p++;
		}
		n = node(d, K_CLONE, n, -1);
		if (n >= 0) {
			d->nodes[n].s = s;
			d->nodes[n].n = (unsigned)(d->p - s);
		}
	}
	return n;
}

size_t cua_demangle_into(char *out, size_t cap, const char *name, size_t len)
{
	struct cua_demangle_state state;

	return cua_demangle_with(&state, out, cap, name, len);
}

_Static_assert(sizeof(struct cua_demangle_state) >= sizeof(struct dm),
	       "CUA_DEMANGLE_STATE_BYTES too small for the parser's tables");

size_t cua_demangle_with(struct cua_demangle_state *state, char *out, size_t cap, const char *name_,
			 size_t len)
{
	/* The caller's bytes (on its stack, or static behind its lock): aligned and big
	   enough for the tables, checked above. */
	struct dm *d = (struct dm *)(void *)state->bytes;
	struct name_info info = { 0 };
	struct out o;
	int top;

	/* A NUL inside is no name (and would end the text the caller gets). */
	if (!out || cap == 0 || !name_ || len < 3 || name_[0] != '_' || name_[1] != 'Z' ||
	    memchr(name_, '\0', len))
		return 0;
	d->p = name_ + 2;
	d->end = name_ + len;
	d->depth = d->failed = d->in_expansion = d->in_local = d->member_next = d->entity_next = 0;
	d->nnodes = d->nsubs = d->ntargs = d->nsaved = 0;
	d->gen = d->next_gen = 0;
	top = encoding(d, &info);
	top = clone_suffixes(d, top);
	if (top < 0 || d->failed || d->p != d->end)
		return 0;
	o.d = d;
	o.p = out;
	o.len = 0;
	o.cap = cap - 1;
	o.failed = 0;
	o.depth = 0;
	o.pack_index = -1;
	o.steps = 0;
	o.buf_len = 0;
	o.flushes = 0;
	o.last = 0;
	print(&o, top);
	if (o.failed || o.len == 0)
		return 0;
	out[o.len] = '\0';
	return o.len;
}
