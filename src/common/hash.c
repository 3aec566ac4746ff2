/* hash.c - SHA-256 (OpenSSL EVP) and base64 (EVP_EncodeBlock/EVP_DecodeBlock). */
#include "common/hash.h"

#include <openssl/evp.h>
#include <string.h>

#include "common/xalloc.h"

struct sha256_ctx *sha256_new(void)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1)
		FATAL("cannot initialise SHA-256");
	return (struct sha256_ctx *)c;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t n)
{
	if (n && EVP_DigestUpdate((EVP_MD_CTX *)c, data, n) != 1)
		FATAL("SHA-256 update failed");
}

void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_LEN])
{
	unsigned int len = 0;
	if (EVP_DigestFinal_ex((EVP_MD_CTX *)c, out, &len) != 1 || len != SHA256_LEN)
		FATAL("SHA-256 final failed");
	EVP_MD_CTX_free((EVP_MD_CTX *)c);
}

void sha256(const void *data, size_t n, uint8_t out[SHA256_LEN])
{
	unsigned int len = 0;
	if (EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) != 1)
		FATAL("SHA-256 failed");
}

void hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(hex[2 * i]), lo = hi < 0 ? -1 : hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return hex[2 * n] == '\0' ? 0 : -1;
}

void sha256_tagged(const void *data, size_t n, char out[72])
{
	uint8_t d[SHA256_LEN];
	sha256(data, n, d);
	memcpy(out, "sha256:", 7);
	hex_encode(d, SHA256_LEN, out + 7);
}

size_t base64_encoded_len(size_t n)
{
	return 4 * ((n + 2) / 3);
}

void base64_encode(const void *in, size_t n, struct buf *out)
{
	/* EVP_EncodeBlock takes an int length: feed it in bounded slices (multiples of 3). */
	const size_t slice = (size_t)3 << 20;
	const unsigned char *p = in;
	buf_reserve(out, base64_encoded_len(n));
	while (n > 0) {
		size_t take = n > slice ? slice : n;
		int w = EVP_EncodeBlock((unsigned char *)out->p + out->len, p, (int)take);
		out->len += (size_t)w;
		p += take;
		n -= take;
	}
	out->p[out->len] = '\0';
}

int base64_decode(const char *in, size_t n, struct buf *out)
{
	if (n % 4 != 0)
		return -1;
	const size_t slice = (size_t)4 << 20;
	while (n > 0) {
		size_t take = n > slice ? slice : n;
		size_t pad = 0;
		if (take == n) {
			if (take >= 1 && in[take - 1] == '=')
				pad++;
			if (take >= 2 && in[take - 2] == '=')
				pad++;
		}
		for (size_t i = 0; i < take - pad; i++)
			if (in[i] == '=')
				return -1;
		buf_reserve(out, take / 4 * 3);
		int w = EVP_DecodeBlock((unsigned char *)out->p + out->len, (const unsigned char *)in, (int)take);
		if (w < 0 || (size_t)w < pad)
			return -1;
		out->len += (size_t)w - pad;
		in += take;
		n -= take;
	}
	buf_reserve(out, 0);
	out->p[out->len] = '\0';
	return 0;
}
