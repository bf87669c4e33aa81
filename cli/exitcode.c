/* From the library's MUSTER_E* codes to the program's exit statuses. */
#include <config.h>

#include "cli.h"

static int cli_exit_code(int code)
{
	switch (code) {
	case MUSTER_OK:
		return CLI_EXIT_OK;
	case MUSTER_ENOTFOUND:
		return CLI_EXIT_NOTFOUND;
	case MUSTER_EUNAVAIL:
		return CLI_EXIT_UNAVAIL;
	case MUSTER_ETRYAGAIN:
		return CLI_EXIT_TRYAGAIN;
	case MUSTER_ECONFIG:
	case MUSTER_EPLUGIN:
	case MUSTER_EABI:
		return CLI_EXIT_CONFIG;
	case MUSTER_ENOENT:
	case MUSTER_ECONFLICT:
		return CLI_EXIT_NOENT;
	default: /* MUSTER_ENOMEM, MUSTER_EINVAL, codes of a newer library */
		return CLI_EXIT_SOFTWARE;
	}
}

int cli_fail(int code, const muster_error *err)
{
	if (err != NULL && err->message[0] != '\0')
		cli_error("%s", err->message);
	else
		cli_error("%s", muster_strerror(code));
	return cli_exit_code(code);
}
