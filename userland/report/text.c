/* text.c - word wrapping for 80-column text: the report's text view and the console share it. */
#include "report/text.h"
#include "lib/json.h"

#include <stdlib.h>
#include <string.h>

void ps_wrap(FILE *f, int width, int col, int indent, const char *raw)
{
	/* Whatever a device or a file said is shown, never obeyed: control bytes escaped. */
	char *text = ps_text_clean_dup(raw, strlen(raw), "\n");
	const char *p = text ? text : "";

	while (*p) {
		size_t sp = strspn(p, " ");
		size_t word = strcspn(p + sp, " \n");

		if (p[sp] == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			p += sp + 1;
			continue;
		}
		if (word == 0)
			break;
		if (col > indent && col + (int)(sp + word) > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else {
			fprintf(f, "%*s", (int)sp, "");
			col += (int)sp;
		}
		/* a word longer than the line is cut into pieces */
		while ((int)word > width - col && width - col > 0) {
			int room = width - col;

			fwrite(p + sp, 1, (size_t)room, f);
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			sp += (size_t)room;
			word -= (size_t)room;
		}
		fwrite(p + sp, 1, word, f);
		col += (int)word;
		p += sp + word;
	}
	fputc('\n', f);
	free(text);
}
