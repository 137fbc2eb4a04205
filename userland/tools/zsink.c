// SPDX-License-Identifier: GPL-2.0
/*
 * The output stream of zsink.h. Compressed bytes (or plain ones) gather in
 * one buffer of OUT_SIZE and go out in one write() when it is full, so a
 * capture of small frames makes few system calls. Neither compressor is
 * flushed between records: each keeps its window across them, as an
 * archiver would, and the cost per record is then the level's alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zsink.h"

#define OUT_SIZE	(256 * 1024)

enum zsink_kind zsink_kind_of(const char *path)
{
	size_t n = strlen(path);

	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		return ZSINK_GZIP;
	if (n > 4 && !strcmp(path + n - 4, ".zst"))
		return ZSINK_ZSTD;
	return ZSINK_PLAIN;
}

static const char *const zsink_names[] = {
	[ZSINK_PLAIN] = "none",
	[ZSINK_GZIP] = "gzip",
	[ZSINK_ZSTD] = "zstd",
};

int zsink_parse_kind(const char *s, enum zsink_kind *kind)
{
	unsigned int i;

	for (i = 0; i < sizeof(zsink_names) / sizeof(zsink_names[0]); i++)
		if (!strcmp(s, zsink_names[i])) {
			*kind = i;
			return 0;
		}
	return -1;
}

const char *zsink_kind_name(enum zsink_kind kind)
{
	return zsink_names[kind];
}

/* write() all of it, through partial writes and signals; 0 or -errno. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Hand the buffer to the file (or nowhere) and start it again. */
static int zsink_drain(struct zsink *s)
{
	int err = 0;

	s->bytes_out += s->out_len;
	if (s->fd >= 0)
		err = write_all(s->fd, s->out, s->out_len);
	s->out_len = 0;
	return err;
}

int zsink_open(struct zsink *s, enum zsink_kind kind, int level, int fd)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->fd = fd;
	s->out = malloc(OUT_SIZE);
	if (!s->out)
		return -ENOMEM;
	switch (kind) {
	case ZSINK_PLAIN:
		break;
	case ZSINK_GZIP:
		/* windowBits 15 + 16: the gzip wrapper, so zcat reads it. */
		if (deflateInit2(&s->z, level, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return -EINVAL;
		break;
	case ZSINK_ZSTD:
		s->zc = ZSTD_createCCtx();
		if (!s->zc)
			return -ENOMEM;
		if (ZSTD_isError(ZSTD_CCtx_setParameter(s->zc,
						ZSTD_c_compressionLevel, level)))
			return -EINVAL;
		break;
	}
	return 0;
}

static int zsink_gzip(struct zsink *s, const void *buf, size_t len, int flush)
{
	int ret, err;

	s->z.next_in = (unsigned char *)buf;
	s->z.avail_in = len;
	for (;;) {
		s->z.next_out = s->out + s->out_len;
		s->z.avail_out = OUT_SIZE - s->out_len;
		ret = deflate(&s->z, flush);
		if (ret == Z_STREAM_ERROR)
			return -EINVAL;
		s->out_len = OUT_SIZE - s->z.avail_out;
		if (flush == Z_FINISH ? ret == Z_STREAM_END :
		    !s->z.avail_in && s->z.avail_out)
			return 0;
		/* Only a full buffer stops deflate early: drain, go on. */
		err = zsink_drain(s);
		if (err)
			return err;
	}
}

static int zsink_zstd(struct zsink *s, const void *buf, size_t len,
		      ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	ZSTD_outBuffer out;
	size_t left;
	int err;

	for (;;) {
		out = (ZSTD_outBuffer){ s->out, OUT_SIZE, s->out_len };
		left = ZSTD_compressStream2(s->zc, &out, &in, end);
		if (ZSTD_isError(left))
			return -EIO;
		s->out_len = out.pos;
		if (end == ZSTD_e_end ? !left :
		    in.pos == in.size && out.pos < out.size)
			return 0;
		err = zsink_drain(s);
		if (err)
			return err;
	}
}

int zsink_write(struct zsink *s, const void *buf, size_t len)
{
	size_t n;
	int err;

	s->bytes_in += len;
	switch (s->kind) {
	case ZSINK_GZIP:
		return zsink_gzip(s, buf, len, Z_NO_FLUSH);
	case ZSINK_ZSTD:
		return zsink_zstd(s, buf, len, ZSTD_e_continue);
	case ZSINK_PLAIN:
		break;
	}
	while (len) {
		n = OUT_SIZE - s->out_len < len ? OUT_SIZE - s->out_len : len;
		memcpy(s->out + s->out_len, buf, n);
		s->out_len += n;
		buf = (const unsigned char *)buf + n;
		len -= n;
		if (s->out_len == OUT_SIZE) {
			err = zsink_drain(s);
			if (err)
				return err;
		}
	}
	return 0;
}

int zsink_finish(struct zsink *s)
{
	int err = 0;

	if (s->kind == ZSINK_GZIP)
		err = zsink_gzip(s, NULL, 0, Z_FINISH);
	else if (s->kind == ZSINK_ZSTD)
		err = zsink_zstd(s, NULL, 0, ZSTD_e_end);
	return err ? err : zsink_drain(s);
}

void zsink_free(struct zsink *s)
{
	if (s->kind == ZSINK_GZIP)
		deflateEnd(&s->z);
	ZSTD_freeCCtx(s->zc);
	free(s->out);
	s->out = NULL;
	s->zc = NULL;
}
