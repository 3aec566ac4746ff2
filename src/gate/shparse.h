/* shparse.h - a POSIX shell parser (plus the bash forms agents write: $'...', [[ ]],
 * (( )), <(...), &>, <<<, |&, function, arrays) that turns one command string into an
 * AST allocated in an arena. It only builds syntax: it never expands, never decides what a
 * command does, and never performs I/O. Re-entrant; one parse per arena, one thread.
 *
 * Words keep their structure (literal runs with their quoting, parameter expansions,
 * command substitutions parsed recursively, arithmetic, process substitutions, tildes) so
 * the lowering can tell a literal path from a value it cannot know. Here-document bodies
 * are attached to their redirect as words: literal when the delimiter was quoted, otherwise
 * with the expansions (and command substitutions) the shell would perform. */
#ifndef BELAY_GATE_SHPARSE_H
#define BELAY_GATE_SHPARSE_H
#include <stddef.h>

#include "gate/arena.h"

enum sh_part_kind {
	SHP_LIT,     /* s[0..n): literal bytes after quote removal */
	SHP_PARAM,   /* $name / ${name...}: s = name ("HOME", "1", "@", "?"), op, arg */
	SHP_CMDSUB,  /* $(...) or `...`: sub = parsed program */
	SHP_ARITH,   /* $((...)) or $[...]: arg = the expression as a word (its expansions);
		      * arg NULL stands for the value of an array assignment NAME=(...) */
	SHP_PROCSUB, /* <(...) or >(...): sub = program, dir = '<' or '>' */
	SHP_TILDE,   /* leading ~ or ~user: s = user ("" for the current user) */
};

struct sh_node;
struct sh_word;

struct sh_part {
	enum sh_part_kind kind;
	unsigned char quoted; /* protected from splitting and globbing */
	char dir;	      /* PROCSUB: '<' or '>' */
	char op[4];	      /* PARAM: "" plain, ":-" "-" ":=" "=" ":+" "+" ":?" "?", "#" "##" "%"
			       * "%%" "/" "//" "^" "^^" "," ",," ":" "@", "len" for ${#x}, "!" for ${!x}, and "!OP"
			       * for ${!x OP word} ("!@" is ${!prefix@}) */
	const char *s;
	size_t n;
	struct sh_word *arg; /* PARAM operator word / ARITH expression (may be NULL) */
	struct sh_word *idx; /* PARAM array subscript ${a[idx]} (may be NULL) */
	struct sh_node *sub; /* CMDSUB / PROCSUB */
};

struct sh_word {
	struct sh_part *p;
	size_t n, cap;
	const char *src; /* source buffer the offsets refer to */
	size_t off, end;
	struct sh_word *elems; /* NAME=( elements ): the element words (assignments only) */
	size_t nelems, capelems;
};

enum sh_redir_op {
	SHR_IN,		/* <     */
	SHR_OUT,	/* >     */
	SHR_CLOBBER,	/* >|    */
	SHR_APPEND,	/* >>    */
	SHR_RW,		/* <>    */
	SHR_DUPIN,	/* <&    */
	SHR_DUPOUT,	/* >&    */
	SHR_ALL,	/* &> (and >&file) */
	SHR_ALL_APPEND, /* &>>   */
	SHR_HEREDOC,	/* << and <<- */
	SHR_HERESTRING, /* <<<   */
};

/* A here-document: allocated on its own so the body can be attached when the line ends. */
struct sh_heredoc {
	struct sh_word *body;	    /* the body as a word (never NULL after a successful parse) */
	unsigned char literal;	    /* delimiter was quoted: body is data with no expansion */
	unsigned char strip_tabs;   /* <<- */
	unsigned char unterminated; /* input ended before the delimiter line */
};

struct sh_redir {
	enum sh_redir_op op;
	int fd;		       /* explicit fd number, or -1 */
	struct sh_word target; /* file, fd word, here-doc delimiter, here-string */
	struct sh_heredoc *hd; /* SHR_HEREDOC only */
	const char *src;
	size_t off, end;
};

enum sh_kind {
	SH_SIMPLE,   /* assigns, words, redirs */
	SH_PIPE,     /* kids: the commands, left to right */
	SH_AND,	     /* kids[0] && kids[1] */
	SH_OR,	     /* kids[0] || kids[1] */
	SH_SEQ,	     /* kids run one after another (; and newline) */
	SH_BG,	     /* kids[0] & */
	SH_NOT,	     /* ! kids[0] */
	SH_SUBSHELL, /* ( kids[0] ) redirs */
	SH_GROUP,    /* { kids[0]; } redirs */
	SH_IF,	     /* kids: cond, then, [cond, then]..., [else] */
	SH_WHILE,    /* kids[0] condition, kids[1] body */
	SH_UNTIL,    /* same */
	SH_FOR,	     /* name, words (has_in), kids[0] body; also select */
	SH_CASE,     /* words[0] subject, words[1..] all patterns, kids: bodies */
	SH_FUNC,     /* name, kids[0] body */
	SH_COND,     /* [[ words ]] */
	SH_ARITHCMD, /* (( words[0] )) ; also arithmetic for (( ; ; )) with kids[0] body */
	SH_COPROC,   /* coproc kids[0] */
};

struct sh_node {
	enum sh_kind kind;
	const char *src;
	size_t off, end;
	struct sh_word *words;
	size_t nwords, capwords;
	struct sh_word *assigns; /* NAME=value words (text includes "NAME=") */
	size_t nassigns, capassigns;
	struct sh_redir *redirs;
	size_t nredirs, capredirs;
	struct sh_node **kids;
	size_t nkids, capkids;
	const char *name; /* FOR variable, FUNC name (NUL-terminated, arena) */
	unsigned char has_in;
	unsigned char timed; /* `time` prefix */
};

struct shparse_limits {
	size_t max_input; /* bytes */
	int max_nesting;  /* parentheses, braces, substitutions, keywords combined */
};

struct shparse_error {
	char msg[160];
	size_t off;   /* byte offset in the top-level input where it was detected (approximate for
			 nested buffers) */
	int too_deep; /* the nesting limit was hit (a named reason, not a syntax error) */
};

/* Parses s[0..n) as a complete program. On success returns 0 and *out (arena-owned; an
 * empty program gives an SH_SEQ with no kids). On a syntax error, an unterminated quote or
 * substitution, or a nesting overflow returns BELAY_EINVAL and fills *pe. */
int shparse_program(struct arena *a, const char *s, size_t n, const struct shparse_limits *lim, struct sh_node **out,
		    struct shparse_error *pe);

/* 1 when w is one unquoted literal part equal to lit. */
int shparse_word_is(const struct sh_word *w, const char *lit);
/* 1 when every part of w is literal; *text gets the concatenation (arena). Quoted parts
 * count as literal. */
int shparse_word_literal(struct arena *a, const struct sh_word *w, char **text);

#endif
