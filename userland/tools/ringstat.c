// SPDX-License-Identifier: GPL-2.0
/*
 * ringstat: /proc/net/ringcap for people. The module line becomes
 * "key: value" lines and the socket lines an aligned table; with -i the
 * view refreshes and gains per-second rates of received and dropped.
 *
 * The file is parsed by words, not by position, so columns the module
 * adds later are shown too, and a missing column only hides the rates.
 *
 * --delete NAME deletes an unclaimed persistent ring (the persist column)
 * of the caller's network namespace.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "libringcap.h"

#define PROG		"ringstat"
#define PROC_PATH	"/proc/net/ringcap"
#define RATE_LEN	24

/* One reading of the file, split into words in place. */
struct snap {
	char *text;
	char ***rows;		/* [0]: module line, [1]: column names */
	int *len;		/* words in each row */
	int nrows;
	double t;		/* CLOCK_MONOTONIC seconds */
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [-i SEC [-c COUNT]] [-f FILE]\n"
		"       " PROG " --delete NAME\n"
		"Show " PROC_PATH ": the module's settings and its sockets.\n"
		"\n"
		"      --delete NAME   delete the persistent ring NAME that no\n"
		"                      reader holds (yours, or any with CAP_NET_ADMIN)\n"
		"  -i, --interval SEC  refresh every SEC seconds, with rx/s and drop/s\n"
		"  -c, --count N       with -i, stop after N views\n"
		"  -f, --file FILE     read FILE instead of " PROC_PATH "\n"
		"  -h, --help          this text\n"
		"Exit: 0 ok, 1 error (e.g. module not loaded), 2 bad usage.\n");
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die(1, "out of memory");
	return p;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The whole file; proc files report no size, so read until EOF. */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = xrealloc(NULL, cap);
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !strcmp(path, PROC_PATH))
			die(1, "ringcap module not loaded (no " PROC_PATH ")");
		die(1, "cannot read %s: %s", path, strerror(errno));
	}
	for (;;) {
		len += fread(buf + len, 1, cap - len - 1, f);
		if (len < cap - 1)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	if (ferror(f))
		die(1, "reading %s: %s", path, strerror(errno));
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void snap_read(struct snap *s, const char *path)
{
	char *line, *next, *word, *save;
	int n;

	memset(s, 0, sizeof(*s));
	s->text = slurp(path);
	s->t = mono_now();
	for (line = s->text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		s->rows = xrealloc(s->rows, (s->nrows + 1) * sizeof(*s->rows));
		s->len = xrealloc(s->len, (s->nrows + 1) * sizeof(*s->len));
		s->rows[s->nrows] = NULL;
		n = 0;
		for (word = strtok_r(line, " \t", &save); word;
		     word = strtok_r(NULL, " \t", &save)) {
			s->rows[s->nrows] = xrealloc(s->rows[s->nrows],
						     (n + 1) * sizeof(char *));
			s->rows[s->nrows][n++] = word;
		}
		if (!n)
			continue;	/* blank line */
		s->len[s->nrows++] = n;
	}
	if (s->nrows < 2 || strcmp(s->rows[0][0], "ringcap"))
		die(1, "%s: not in the ringcap format (no \"ringcap\" line and column header)",
		    path);
}

static void snap_free(struct snap *s)
{
	int i;

	for (i = 0; i < s->nrows; i++)
		free(s->rows[i]);
	free(s->rows);
	free(s->len);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* Index of a column by name, or -1. */
static int col(const struct snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->len[1]; i++)
		if (!strcmp(s->rows[1][i], name))
			return i;
	return -1;
}

static const char *cell(const struct snap *s, int row, int c)
{
	return c >= 0 && c < s->len[row] ? s->rows[row][c] : NULL;
}

/* "ringcap 0.1.0 abi 1 family 25 ..." as aligned "key: value" lines. */
static void print_module(const struct snap *s)
{
	int i, w = (int)strlen("version");

	for (i = 2; i + 1 < s->len[0]; i += 2)
		if ((int)strlen(s->rows[0][i]) > w)
			w = (int)strlen(s->rows[0][i]);
	printf("%-*s %s\n", w + 1, "version:", s->len[0] > 1 ?
	       s->rows[0][1] : "?");
	for (i = 2; i < s->len[0]; i += 2)
		printf("%s:%*s %s\n", s->rows[0][i],
		       w - (int)strlen(s->rows[0][i]), "",
		       i + 1 < s->len[0] ? s->rows[0][i + 1] : "");
}

static int is_num(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!isdigit((unsigned char)*w) && *w != '.')
			return 0;
	return 1;
}

/*
 * Per-second rate of column name for socket row, matched in prev by inode:
 * a socket that is new since the last view has no rate yet ("-").
 */
static void rate(const struct snap *cur, const struct snap *prev, int row,
		 const char *name, char *out)
{
	const char *ino, *val, *pval;
	unsigned long long a, b;
	double dt;
	int r;

	snprintf(out, RATE_LEN, "-");
	if (!prev || col(cur, "inode") < 0 || col(prev, "inode") < 0 ||
	    col(cur, name) < 0 || col(prev, name) < 0)
		return;
	ino = cell(cur, row, col(cur, "inode"));
	val = cell(cur, row, col(cur, name));
	dt = cur->t - prev->t;
	if (!ino || !val || dt <= 0)
		return;
	for (r = 2; r < prev->nrows; r++) {
		if (strcmp(ino, cell(prev, r, col(prev, "inode")) ?: ""))
			continue;
		pval = cell(prev, r, col(prev, name));
		if (!pval)
			return;
		a = strtoull(val, NULL, 10);
		b = strtoull(pval, NULL, 10);
		if (a >= b)
			snprintf(out, RATE_LEN, "%.0f", (a - b) / dt);
		return;
	}
}

/*
 * The column header and socket lines, aligned: numbers to the right,
 * words to the left. With rates, rx/s and drop/s follow the file's columns.
 */
static void print_table(const struct snap *cur, const struct snap *prev,
			int rates)
{
	int nrows = cur->nrows - 1, ncols = 0, nextra = rates ? 2 : 0;
	const char **m;
	char (*rb)[RATE_LEN];
	int *width, *right;
	char *line, *p;
	int r, c, tot;
	size_t len;

	for (r = 1; r < cur->nrows; r++)
		if (cur->len[r] > ncols)
			ncols = cur->len[r];
	tot = ncols + nextra;
	m = xrealloc(NULL, nrows * tot * sizeof(*m));
	rb = xrealloc(NULL, nrows * 2 * sizeof(*rb));
	width = xrealloc(NULL, tot * sizeof(*width));
	right = xrealloc(NULL, tot * sizeof(*right));

	for (r = 0; r < nrows; r++) {
		for (c = 0; c < ncols; c++)
			m[r * tot + c] = cell(cur, r + 1, c) ?: "";
		if (!rates)
			continue;
		if (!r) {
			snprintf(rb[0], RATE_LEN, "rx/s");
			snprintf(rb[1], RATE_LEN, "drop/s");
		} else {
			rate(cur, prev, r + 1, "received", rb[r * 2]);
			rate(cur, prev, r + 1, "dropped", rb[r * 2 + 1]);
		}
		m[r * tot + ncols] = rb[r * 2];
		m[r * tot + ncols + 1] = rb[r * 2 + 1];
	}
	for (c = 0; c < tot; c++) {
		width[c] = 0;
		right[c] = nrows > 1;
		for (r = 0; r < nrows; r++) {
			const char *v = m[r * tot + c];

			if ((int)strlen(v) > width[c])
				width[c] = (int)strlen(v);
			if (r && *v && strcmp(v, "-") && !is_num(v))
				right[c] = 0;
		}
	}
	for (c = 0, len = 1; c < tot; c++)
		len += width[c] + 2;
	line = xrealloc(NULL, len);
	for (r = 0; r < nrows; r++) {
		for (c = 0, p = line; c < tot; c++)
			p += sprintf(p, right[c] ? "%*s  " : "%-*s  ", width[c],
				     m[r * tot + c]);
		/* Short rows and the last column leave trailing blanks. */
		while (p > line && p[-1] == ' ')
			p--;
		*p = '\0';
		puts(line);
	}
	if (nrows == 1)
		puts("(no sockets)");
	free(line);
	free(right);
	free(width);
	free(rb);
	free(m);
}

const char cli_prog[] = PROG;
enum { OPT_DELETE = 256 };

const struct option cli_longopts[] = {
	{ "delete", required_argument, NULL, OPT_DELETE },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'c' },
	{ "file", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* --delete NAME: one socket, one option. */
static int delete_ring(const char *name)
{
	struct ringcap *rc = rcap_open();

	if (!rc)
		die(1, "cannot open a ringcap socket: %s%s", strerror(errno),
		    errno == EPERM ? " (needs CAP_NET_RAW)" :
		    errno == EAFNOSUPPORT ? " (ringcap module not loaded)" : "");
	if (rcap_delete_persist(rc, name)) {
		fprintf(stderr, PROG ": %s\n", rcap_errmsg(rc));
		rcap_close(rc);
		return 1;
	}
	rcap_close(rc);
	printf(PROG ": deleted persistent ring %s\n", name);
	return 0;
}

int main(int argc, char **argv)
{
	const char *del = NULL;
	const char *path = PROC_PATH;
	struct snap cur, prev = { 0 };
	struct timespec ts;
	double interval = 0;
	unsigned long long count = 0, n;
	int c, tty;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:c:f:h", cli_longopts,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = cli_seconds(c, optarg, 86400);
			break;
		case 'c':
			count = cli_num(c, optarg, 1, ~0ULL, 0);
			break;
		case 'f':
			path = optarg;
			break;
		case OPT_DELETE:
			del = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (count && !interval)
		bad_usage("-c needs -i");
	if (del && (interval || strcmp(path, PROC_PATH)))
		bad_usage("--delete goes alone");
	if (del)
		return delete_ring(del);
	if (!interval)
		count = 1;

	tty = isatty(STDOUT_FILENO);
	for (n = 0; !count || n < count; n++) {
		if (n) {
			ts.tv_sec = (time_t)interval;
			ts.tv_nsec = (long)((interval - ts.tv_sec) * 1e9);
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		snap_read(&cur, path);
		if (interval) {
			/* Redraw on a terminal; keep history in a log. */
			if (tty)
				fputs("\033[H\033[J", stdout);
			else if (n)
				putchar('\n');
		}
		print_module(&cur);
		putchar('\n');
		print_table(&cur, n ? &prev : NULL, interval > 0);
		fflush(stdout);
		snap_free(&prev);
		prev = cur;
	}
	snap_free(&prev);
	return 0;
}
