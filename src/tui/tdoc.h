/* tdoc.h - a styled text document: lines of spans, each span a role and UTF-8 text. What
 * the detail tabs, help and log show; built by pure code (JSON view, diff, tables) and drawn
 * by tdoc_draw with scrolling and optional wrapping.
 *
 * Must not: touch curses. Threads: one document, one thread. */
#ifndef BELAY_TUI_TDOC_H
#define BELAY_TUI_TDOC_H
#include <stddef.h>

#include "tui/canvas.h"
#include "tui/role.h"

struct tspan {
	unsigned char role;
	char *text; /* owned */
};

struct tline {
	struct tspan *sp;
	int n, cap;
	int tag; /* caller's mark for the line (e.g. a JSON fold id), -1 none */
	int hang; /* columns a wrapped line's continuation rows are indented by (0: 2) */
};

struct tdoc_rows;

/* One replacement of lines: [at, at+removed) of the document as it was became `added` new
 * lines there. */
struct tdoc_edit {
	size_t at, removed, added;
};

struct tdoc {
	struct tline *lines;
	size_t n, cap;
	unsigned gen; /* changes with every change to the document (what was computed from it is stale):
	               * code that edits lines itself bumps it */
	unsigned long serial; /* which document this is: new with the first line after tdoc_init or
	                       * tdoc_free (gen alone starts again at 0 in a struct used again) */
	struct tdoc_rows *rows; /* where each line's rows start at the width last asked (owned;
	                         * kept while gen and the width stay): a large document draws
	                         * and scrolls in the time of what is shown */
	/* The last tdoc_splice: its edits (ascending, old line numbers) took the document from
	 * generation edit_from to edit_to, so what was computed at edit_from (search matches) can
	 * be brought up to date by looking at the new lines only. */
	struct tdoc_edit *edits;
	size_t nedits, capedits;
	unsigned edit_from, edit_to;
};

/* A highlighted range of one line: bytes [off, off+len) of the line's plain text (its spans
 * concatenated, as tdoc_line_text gives it), drawn in `role` over whatever it had. */
struct tmark {
	size_t line, off, len;
	unsigned char role;
};

void tdoc_init(struct tdoc *d);
void tdoc_free(struct tdoc *d);
void tdoc_clear(struct tdoc *d);
/* Starts a new line (tag -1). */
void tdoc_nl(struct tdoc *d);
/* Appends a span to the current line (starting one if there is none). */
void tdoc_add(struct tdoc *d, enum role r, const char *text);
void tdoc_addn(struct tdoc *d, enum role r, const char *text, size_t n);
void tdoc_addf(struct tdoc *d, enum role r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Continuation rows of the current line start `cols` columns in (under a table's last
 * column, say), when the width leaves that column 16 or more; else 2. */
void tdoc_hang(struct tdoc *d, int cols);
/* Appends text that may hold newlines: each becomes a new line in role r. */
void tdoc_text(struct tdoc *d, enum role r, const char *text);
/* Replaces lines in place: pieces (ascending by at, not overlapping; at and removed in the
 * document's present line numbers) each take the lines of src[k] (moved: src[k] is left
 * empty). Costs what changes: the rows cached for a width are carried over, only the new
 * lines are measured; the edits are kept (edits, edit_from, edit_to). */
struct tdoc_piece {
	size_t at, removed;
	struct tdoc *src;
};
void tdoc_splice(struct tdoc *d, const struct tdoc_piece *p, size_t n);
/* The plain text of line i (new string). */
char *tdoc_line_text(const struct tdoc *d, size_t i);

/* Rows the document takes at width w (wrap: long lines continue on the next row, broken
 * after a space; a word wider than the row is cut where the row ends). */
size_t tdoc_rows(const struct tdoc *d, int w, int wrap);
/* Draws rows [top, top+h) of the document into the rectangle; `cursor` (a row index, or
 * -1) is drawn in ROLE_SELECTED. Returns the number of rows the document has. */
size_t tdoc_draw(const struct tdoc *d, struct canvas *c, int y, int x, int h, int w, size_t top, int wrap,
		 long cursor);
/* tdoc_draw with marks (sorted by line, then off; they do not overlap): each marked range is
 * drawn in its mark's role, on the cursor row too. */
size_t tdoc_draw_marked(const struct tdoc *d, struct canvas *c, int y, int x, int h, int w, size_t top, int wrap,
			long cursor, const struct tmark *marks, size_t nmarks);
/* The row on which byte `off` of line `line` is drawn (at width w, wrap as tdoc_draw). */
size_t tdoc_row_of(const struct tdoc *d, int w, int wrap, size_t line, size_t off);
/* The line shown on row `row` (for folding under the cursor), or SIZE_MAX. */
size_t tdoc_line_at_row(const struct tdoc *d, int w, int wrap, size_t row);

#endif
