#include <config.h>

#include "settings.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/env.h"
#include "lib/error.h"
#include "includes.h"
#include "loader.h"
#include "model/nameindex.h"
#include "suggest.h"
#include "unknown.h"

/* Far above any real chain; each entry holds a plugin instance. */
#define MAX_CHAIN_ENTRIES 10000

static const char *const status_names[STATUS_COUNT] = {"success", "notfound", "unavail",
                                                       "tryagain"};
static const char *const action_keys[STATUS_COUNT] = {"on_success", "on_notfound", "on_unavail",
                                                      "on_tryagain"};
/* What a typo is compared with. */
static const char *const top_keys[] = {"chain", "strict", "plugin_path", "local_accelerators",
                                       "master_port", "choose_interface"};
static const char *const entry_keys[] = {"plugin",      "name",       "config",
                                         "timeout_ms",  "on_success", "on_notfound",
                                         "on_unavail",  "on_tryagain", "watch_interval_ms",
                                         "detect"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *status_name(int status)
{
	return status >= 0 && status < STATUS_COUNT ? status_names[status] : "invalid";
}

const char *settings_default_path(const char *explicit_path)
{
	if (explicit_path)
		return explicit_path;
	const char *env = env_get("MUSTER_CONF");
	return env && *env ? env : MUSTER_DEFAULT_CONFIG;
}

void settings_where(const config_setting_t *node, char *buf, size_t len)
{
	const char *file = node ? config_setting_source_file(node) : NULL;
	if (file)
		snprintf(buf, len, "%s:%u: ", file, config_setting_source_line(node));
	else
		buf[0] = '\0';
}

static int fail_at(muster_error *err, const config_setting_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(muster_error *err, const config_setting_t *node, const char *fmt, ...)
{
	char where[512], what[512];
	va_list ap;
	settings_where(node, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return error_set(err, MUSTER_ECONFIG, "%s%s", where, what);
}

/* Keywords compare in ASCII whatever the locale (glibc's tr_TR lesson). */
static int ascii_ieq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a + 32) : *a;
		char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b + 32) : *b;
		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
}

/* libconfig's parser says "memory exhausted" when its stack (bison's
 * YYMAXDEPTH) is full: that is nesting, not memory. */
static const char *parse_error_text(const config_t *cfg)
{
	const char *text = config_error_text(cfg);
	if (text && strcmp(text, "memory exhausted") == 0)
		return "nested too deeply: more groups, lists or arrays inside one another than "
		       "libconfig's parser can hold";
	return text ? text : "syntax error";
}

/* One file, with what it includes (core/includes.c), into `cfg`; `src`
 * says where each setting was written, for as long as `cfg` lives. */
static int read_file(config_t *cfg, struct cfgsource *src, const char *path, muster_error *err)
{
	char *text;
	config_init(cfg);
	int rc = includes_expand(path, &text, src, err);
	if (rc < 0)
		return rc;
	includes_refuse(cfg);
	/* A string, not a stream: flex rescans a token at each refill of a
	 * stream's buffer, so one long token would cost quadratic time. */
	int ok = config_read_string(cfg, text);
	free(text);
	if (ok != CONFIG_TRUE) {
		const char *file;
		unsigned line;
		cfgsource_locate(src, (unsigned)config_error_line(cfg), &file, &line);
		return error_set(err, MUSTER_ECONFIG, "%s:%u: %s", file ? file : path, line,
		                 parse_error_text(cfg));
	}
	cfgsource_apply(src, cfg);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_conf_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && name[0] != '.' && strcmp(name + n - 5, ".conf") == 0;
}

/* The drop-ins: files "<path>.d/NAME.conf", in byte order (not the locale's). */
static int list_dropins(const char *path, char ***out, size_t *count, muster_error *err)
{
	char dirpath[4096];
	*out = NULL;
	*count = 0;
	if ((size_t)snprintf(dirpath, sizeof(dirpath), "%s.d", path) >= sizeof(dirpath))
		return error_set(err, MUSTER_ECONFIG, "%s: path too long", path);
	DIR *d = opendir(dirpath);
	if (!d)
		return 0;
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;
	while ((de = readdir(d)) != NULL && rc == 0) {
		if (!has_conf_suffix(de->d_name))
			continue;
		if (*count == cap) {
			cap = cap ? cap * 2 : 8;
			char **p = realloc(*out, cap * sizeof(**out));
			if (!p) {
				rc = error_set(err, MUSTER_ENOMEM, "out of memory");
				break;
			}
			*out = p;
		}
		size_t n = strlen(dirpath) + strlen(de->d_name) + 2;
		char *full = malloc(n);
		if (!full) {
			rc = error_set(err, MUSTER_ENOMEM, "out of memory");
			break;
		}
		snprintf(full, n, "%s/%s", dirpath, de->d_name);
		(*out)[(*count)++] = full;
	}
	closedir(d);
	if (rc == 0 && *count)
		qsort(*out, *count, sizeof(**out), name_cmp);
	return rc;
}

static void unknown_key(struct settings *s, const config_setting_t *node,
                        const char *const *known, size_t nknown)
{
	const char *name = config_setting_name(node);
	unknown_name(&s->unknown, "option", name, config_setting_source_file(node),
	             (int)config_setting_source_line(node), suggest_nearest(name, known, nknown));
}

static int string_setting(const config_setting_t *node, const char *key, const char **out,
                          muster_error *err)
{
	if (config_setting_type(node) != CONFIG_TYPE_STRING)
		return fail_at(err, node, "'%s' must be a string", key);
	*out = config_setting_get_string(node);
	return 0;
}

static int parse_action(const config_setting_t *node, int *action, muster_error *err)
{
	int rc;
	const char *s = NULL;
	if ((rc = string_setting(node, config_setting_name(node), &s, err)) < 0)
		return rc;
	if (ascii_ieq(s, "return"))
		*action = ACTION_RETURN;
	else if (ascii_ieq(s, "continue"))
		*action = ACTION_CONTINUE;
	else if (ascii_ieq(s, "merge"))
		*action = ACTION_MERGE;
	else
		return fail_at(err, node, "'%s' must be \"return\", \"continue\" or \"merge\", not \"%s\"",
		               config_setting_name(node), s);
	return 0;
}


/* An integer from `min` to `max`. */
static int integer_setting(const config_setting_t *m, const char *key, long min, long max,
                           long *out, muster_error *err)
{
	if (config_setting_type(m) != CONFIG_TYPE_INT && config_setting_type(m) != CONFIG_TYPE_INT64)
		return fail_at(err, m, "'%s' must be an integer", key);
	long long v = config_setting_get_int64(m);
	if (v < min || v > max)
		return fail_at(err, m, "'%s' must be between %ld and %ld, not %lld", key, min, max, v);
	*out = (long)v;
	return 0;
}

/* A duration in milliseconds, 1 ms to one day. */
static int milliseconds_setting(const config_setting_t *m, const char *key, long *out,
                                muster_error *err)
{
	return integer_setting(m, key, 1, 86400000L, out, err);
}

/* One item of `detect`: NAME, NAME* or /PATH. */
static int detect_item_valid(const char *item)
{
	if (item[0] == '/')
		return item[1] != '\0';
	size_t n = strlen(item);
	if (n > 0 && item[n - 1] == '*')
		n--;
	if (n == 0 || (item[0] >= '0' && item[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = item[i];
		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

/* `detect`: a string or a non-empty array/list of them, into a
 * NULL-terminated vector of the config's own strings. */
static int parse_detect(config_setting_t *m, struct entry_settings *e, muster_error *err)
{
	int type = config_setting_type(m);
	int n = type == CONFIG_TYPE_STRING ? 1 : config_setting_length(m);
	if (type != CONFIG_TYPE_STRING && type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
		return fail_at(err, m, "'detect' must be a list of variable names (NAME or NAME*) or "
		                       "files (/PATH)");
	if (n == 0)
		return fail_at(err, m, "'detect' must not be empty");
	free(e->detect);
	if (!(e->detect = calloc((size_t)n + 1, sizeof(*e->detect))))
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const config_setting_t *el = type == CONFIG_TYPE_STRING ? m : config_setting_get_elem(m, (unsigned)i);
		const char *item = config_setting_get_string(el);
		if (!item)
			return fail_at(err, el, "'detect' must be a list of strings");
		if (!detect_item_valid(item))
			return fail_at(err, el, "'detect' item \"%s\" is neither a variable name "
			               "([A-Za-z_][A-Za-z0-9_]*, a final * for a prefix) nor an absolute path",
			               item);
		e->detect[i] = item;
	}
	return 0;
}
static int parse_entry(struct settings *s, config_setting_t *node, struct entry_settings *e,
                       muster_error *err)
{
	int rc;
	memset(e, 0, sizeof(*e));
	e->actions[MUSTER_STATUS_SUCCESS] = ACTION_RETURN;
	e->actions[MUSTER_STATUS_NOTFOUND] = ACTION_CONTINUE;
	e->actions[MUSTER_STATUS_UNAVAIL] = ACTION_CONTINUE;
	e->actions[MUSTER_STATUS_TRYAGAIN] = ACTION_CONTINUE;
	e->timeout_ms = DEFAULT_TIMEOUT_MS;
	e->watch_interval_ms = DEFAULT_WATCH_INTERVAL_MS;
	e->file = config_setting_source_file(node);
	e->line = (int)config_setting_source_line(node);
	if (config_setting_type(node) != CONFIG_TYPE_GROUP)
		return fail_at(err, node, "each chain entry must be a group { plugin = \"...\"; }");

	for (int i = 0; i < config_setting_length(node); i++) {
		config_setting_t *m = config_setting_get_elem(node, (unsigned)i);
		const char *key = config_setting_name(m);
		int known = 0;
		if (strcmp(key, "plugin") == 0) {
			if ((rc = string_setting(m, key, &e->plugin, err)) < 0)
				return rc;
			if (!plugin_name_valid(e->plugin))
				return fail_at(err, m, "invalid plugin name '%s': use [a-z0-9_]+", e->plugin);
			known = 1;
		} else if (strcmp(key, "name") == 0) {
			if ((rc = string_setting(m, key, &e->name, err)) < 0)
				return rc;
			if (!*e->name)
				return fail_at(err, m, "'name' must not be empty");
			known = 1;
		} else if (strcmp(key, "config") == 0) {
			if (config_setting_type(m) != CONFIG_TYPE_GROUP)
				return fail_at(err, m, "'config' must be a group { ... }");
			e->config = m;
			known = 1;
		} else if (strcmp(key, "timeout_ms") == 0) {
			if ((rc = milliseconds_setting(m, key, &e->timeout_ms, err)) < 0)
				return rc;
			known = 1;
		} else if (strcmp(key, "watch_interval_ms") == 0) {
			if ((rc = milliseconds_setting(m, key, &e->watch_interval_ms, err)) < 0)
				return rc;
			known = 1;
		} else if (strcmp(key, "detect") == 0) {
			if ((rc = parse_detect(m, e, err)) < 0)
				return rc;
			known = 1;
		}
		for (int st = 0; st < STATUS_COUNT && !known; st++)
			if (strcmp(key, action_keys[st]) == 0) {
				if ((rc = parse_action(m, &e->actions[st], err)) < 0)
					return rc;
				known = 1;
			}
		if (!known)
			unknown_key(s, m, entry_keys, COUNT(entry_keys));
	}
	if (!e->plugin)
		return fail_at(err, node, "chain entry has no 'plugin'");
	if (!e->name)
		e->name = e->plugin;
	if (!e->config) {
		e->config = config_setting_add(node, "config", CONFIG_TYPE_GROUP);
		if (!e->config)
			return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	return 0;
}

/* Entry names are unique; a name index keeps long chains linear. */
static int unique_names(const struct settings *s, const config_setting_t *chain,
                        muster_error *err)
{
	struct name_index seen = {0};
	int rc = 0;
	for (size_t i = 0; i < s->nentries && rc == 0; i++) {
		uint32_t first;
		if (name_index_get(&seen, s->entries[i].name, &first))
			rc = fail_at(err, config_setting_get_elem(chain, (unsigned)i),
			             "entry name '%s' is already used at line %d; set 'name'",
			             s->entries[i].name, s->entries[first].line);
		else if (name_index_put(&seen, s->entries[i].name, (uint32_t)i) < 0)
			rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	name_index_release(&seen);
	return rc;
}

static int parse_chain(struct settings *s, config_setting_t *chain, muster_error *err)
{
	int rc;
	if (config_setting_type(chain) != CONFIG_TYPE_LIST)
		return fail_at(err, chain, "'chain' must be a list ( { plugin = \"...\"; }, ... )");
	int n = config_setting_length(chain);
	if (n == 0)
		return fail_at(err, chain, "'chain' is empty");
	if (n > MAX_CHAIN_ENTRIES)
		return fail_at(err, chain, "'chain' has %d entries; at most %d are allowed", n,
		               MAX_CHAIN_ENTRIES);
	s->entries = calloc((size_t)n, sizeof(*s->entries));
	if (!s->entries)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		/* Counted first, so that what a failed entry holds is released too. */
		s->nentries++;
		if ((rc = parse_entry(s, config_setting_get_elem(chain, (unsigned)i), &s->entries[i], err)) < 0)
			return rc;
	}
	return unique_names(s, chain, err);
}

/* A string (colon-separated, like $PATH) or an array/list of strings. */
static int parse_plugin_path(struct settings *s, const config_setting_t *node, muster_error *err)
{
	pathlist_clear(&s->plugin_path);
	int type = config_setting_type(node);
	if (type == CONFIG_TYPE_STRING) {
		if (pathlist_add_split(&s->plugin_path, config_setting_get_string(node)) < 0)
			return error_set(err, MUSTER_ENOMEM, "out of memory");
		return 0;
	}
	if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
		return fail_at(err, node, "'plugin_path' must be a string or a list of strings");
	for (int i = 0; i < config_setting_length(node); i++) {
		const config_setting_t *el = config_setting_get_elem(node, (unsigned)i);
		if (config_setting_type(el) != CONFIG_TYPE_STRING)
			return fail_at(err, el, "'plugin_path' must be a string or a list of strings");
		const char *dir = config_setting_get_string(el);
		if (pathlist_add(&s->plugin_path, dir, strlen(dir)) < 0)
			return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	return 0;
}

/* Top-level settings of one file; a later file's settings replace an
 * earlier file's (the chain as a whole). */
static int parse_top(struct settings *s, config_t *cfg, config_setting_t **chain,
                     muster_error *err)
{
	int rc;
	config_setting_t *root = config_root_setting(cfg);
	for (int i = 0; i < config_setting_length(root); i++) {
		config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
		const char *key = config_setting_name(m);
		if (strcmp(key, "chain") == 0) {
			*chain = m;
		} else if (strcmp(key, "strict") == 0) {
			if (config_setting_type(m) != CONFIG_TYPE_BOOL)
				return fail_at(err, m, "'strict' must be true or false");
		} else if (strcmp(key, "plugin_path") == 0) {
			if ((rc = parse_plugin_path(s, m, err)) < 0)
				return rc;
		} else if (strcmp(key, "local_accelerators") == 0) {
			if (config_setting_type(m) != CONFIG_TYPE_BOOL)
				return fail_at(err, m, "'local_accelerators' must be true or false");
			s->local_accelerators = config_setting_get_bool(m);
		} else if (strcmp(key, "choose_interface") == 0) {
			if (config_setting_type(m) != CONFIG_TYPE_BOOL)
				return fail_at(err, m, "'choose_interface' must be true or false");
			s->no_interface = !config_setting_get_bool(m);
		} else if (strcmp(key, "master_port") == 0) {
			if ((rc = integer_setting(m, key, 1, 65535, &s->master_port, err)) < 0)
				return rc;
		} else {
			unknown_key(s, m, top_keys, COUNT(top_keys));
		}
	}
	return 0;
}

/* strict decides how unknown keys are reported, so it is known before any
 * key is looked at: the last file that sets it wins. */
static void find_strict(struct settings *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		const config_setting_t *m =
			config_setting_get_member(config_root_setting(&s->files[i]), "strict");
		if (m && config_setting_type(m) == CONFIG_TYPE_BOOL)
			s->strict = config_setting_get_bool(m);
	}
}

int settings_load(struct settings *s, const char *path, int strict, const struct logger *lg,
                  muster_error *err)
{
	char **dropins = NULL;
	size_t ndropins = 0;
	int rc;
	memset(s, 0, sizeof(*s));
	if (!(s->path = strdup(path)))
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	if ((rc = list_dropins(path, &dropins, &ndropins, err)) < 0)
		goto out;
	s->files = calloc(ndropins + 1, sizeof(*s->files));
	s->sources = calloc(ndropins + 1, sizeof(*s->sources));
	if (!s->files || !s->sources) {
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i <= ndropins; i++) {
		s->nfiles++;
		if ((rc = read_file(&s->files[i], &s->sources[i], i == 0 ? path : dropins[i - 1],
		                    err)) < 0)
			goto out;
	}
	find_strict(s);
	s->strict |= strict;
	unknowns_init(&s->unknown, lg, s->strict);
	config_setting_t *chain = NULL;
	for (size_t i = 0; i < s->nfiles; i++)
		if ((rc = parse_top(s, &s->files[i], &chain, err)) < 0)
			goto out;
	if (!chain) {
		rc = error_set(err, MUSTER_ECONFIG, "%s: no 'chain' setting", path);
		goto out;
	}
	rc = parse_chain(s, chain, err);
out:
	for (size_t i = 0; i < ndropins; i++)
		free(dropins[i]);
	free(dropins);
	return rc < 0 ? rc : 0;
}

void settings_release(struct settings *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		config_destroy(&s->files[i]);
		cfgsource_release(&s->sources[i]);
	}
	free(s->files);
	free(s->sources);
	pathlist_clear(&s->plugin_path);
	for (size_t i = 0; i < s->nentries; i++)
		free(s->entries[i].detect);
	free(s->entries);
	free(s->path);
	memset(s, 0, sizeof(*s));
}
