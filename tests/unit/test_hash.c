/* test_hash.c - base64 (the vector and scalar encoders against OpenSSL's, and decoding
 * back) and SHA-256 against known digests. */
#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/xalloc.h"
#include "ts_jsongen.h"

static void same_as_openssl(const unsigned char *in, size_t n)
{
	struct buf b = {0};
	buf_puts(&b, "prefix:");
	base64_encode(in, n, &b);
	char *want = xmalloc(base64_encoded_len(n) + 1);
	int w = EVP_EncodeBlock((unsigned char *)want, in, (int)n);
	cr_assert_eq((size_t)w, base64_encoded_len(n));
	cr_assert_eq(b.len, 7 + (size_t)w, "length for n=%zu", n);
	cr_assert_eq(memcmp(b.p, "prefix:", 7), 0);
	cr_assert_eq(memcmp(b.p + 7, want, (size_t)w), 0, "n=%zu", n);
	cr_assert_eq(b.p[b.len], '\0');
	struct buf back = {0};
	cr_assert_eq(base64_decode(b.p + 7, b.len - 7, &back), 0);
	cr_assert_eq(back.len, n);
	cr_assert(n == 0 || memcmp(back.p, in, n) == 0);
	buf_free(&back);
	buf_free(&b);
	free(want);
}

Test(hash, base64_matches_openssl_at_every_length)
{
	struct ts_rng r = {7};
	size_t cap = 3 << 20;
	unsigned char *data = xmalloc(cap);
	for (size_t i = 0; i < cap; i++)
		data[i] = (unsigned char)(ts_rng_next(&r) >> 56);
	for (size_t n = 0; n <= 1100; n++)
		same_as_openssl(data, n);
	/* Every byte value in every position of a block. */
	unsigned char all[256 * 3];
	for (int i = 0; i < 256 * 3; i++)
		all[i] = (unsigned char)(i % 256 ^ i / 256 * 85);
	same_as_openssl(all, sizeof all);
	static const size_t big[] = {65535, 65536, 65537, 100000, (size_t)1 << 20};
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
		same_as_openssl(data + i, big[i]);
	same_as_openssl(data, cap);
	/* Unaligned starts. */
	for (size_t off = 1; off < 40; off++)
		same_as_openssl(data + off, 4096 + off);
	free(data);
}

Test(hash, sha256_known_digests)
{
	char h[72];
	sha256_tagged("", 0, h);
	cr_assert_str_eq(h, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_tagged("abc", 3, h);
	cr_assert_str_eq(h, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
