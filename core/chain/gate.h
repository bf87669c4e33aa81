/* An entry's `detect` list: the variables (NAME, or NAME* for any whose
 * name starts so) and files (/PATH) that announce its environment.  When
 * none is there the entry answers notfound without its plugin being
 * loaded or called, which is what keeps a chain of many detectors cheap
 * off their platforms. */
#ifndef MUSTER_GATE_H
#define MUSTER_GATE_H

#include <stddef.h>

struct explain_notes;

/* 1 when one item of `detect` (NULL-terminated) is there, else 0 with the
 * reason in `why` ("TF_CONFIG is not set", "neither A nor B is set",
 * "none of A, B* and /p is set").  With `notes` (an explaining resolve),
 * each item is noted with what was found: a variable's value, the first
 * variable a prefix matches, "present" for a file; NULL when absent.
 * Variables are not trusted in a setuid or setgid program, as
 * secure_getenv() does not trust them. */
int gate_open(const char *const *detect, struct explain_notes *notes, char *why, size_t len);

#endif
