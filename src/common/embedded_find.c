/* embedded_find.c - lookup in the build-time table of embedded data files. */
#include "common/embedded.h"

#include <string.h>

const struct embedded_file *embedded_find(const char *name)
{
	for (const struct embedded_file *f = embedded_files; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}
