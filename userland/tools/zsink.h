/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output byte stream, compressed or not, to a file descriptor or only
 * counted: what packzip and ringcount write their captures through. The
 * compression is the library's (zlib's gzip format, libzstd's frames);
 * this file only feeds it, drains it in large writes and ends it.
 */
#ifndef RINGCAP_TOOLS_ZSINK_H
#define RINGCAP_TOOLS_ZSINK_H

#include <stddef.h>
#include <zlib.h>
#include <zstd.h>

enum zsink_kind {
	ZSINK_PLAIN,
	ZSINK_GZIP,	/* one deflate stream with the gzip wrapper */
	ZSINK_ZSTD,	/* one zstd frame */
};

struct zsink {
	enum zsink_kind kind;
	int fd;				/* -1: count the output only */
	z_stream z;
	ZSTD_CCtx *zc;
	unsigned char *out;		/* compressed bytes not written yet */
	size_t out_len;
	unsigned long long bytes_in;	/* fed to the stream */
	unsigned long long bytes_out;	/* written (or counted) */
};

/* The kind a file name asks for: ".gz" gzip, ".zst" zstd, else plain. */
enum zsink_kind zsink_kind_of(const char *path);
/* "none", "gzip" or "zstd" to a kind; -1 for another word. */
int zsink_parse_kind(const char *s, enum zsink_kind *kind);
const char *zsink_kind_name(enum zsink_kind kind);

/*
 * Start a stream of @kind at @level (zlib 0..9, zstd 1..19; ignored when
 * plain) into @fd, or only counted with -1. 0, or -errno (-EINVAL for a
 * level the library refuses).
 */
int zsink_open(struct zsink *s, enum zsink_kind kind, int level, int fd);
/* Feed @len bytes: compressed and written as the room fills. 0 or -errno. */
int zsink_write(struct zsink *s, const void *buf, size_t len);
/*
 * End the stream (the gzip trailer, the end of the zstd frame) and write
 * what is left: the file is then whole. 0 or -errno. Not the fd's close.
 */
int zsink_finish(struct zsink *s);
void zsink_free(struct zsink *s);

#endif
