/* hash.c - SHA-256 (OpenSSL EVP), base64 encoding (AVX2 where the CPU has it, else scalar)
 * and decoding (EVP_DecodeBlock). */
#include "common/hash.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>

#include "common/err.h"
#include "common/xalloc.h"

/* SHA-256 fetched once: EVP_sha256() makes every digest fetch the implementation again
 * (a lock and a lookup; a tenth of the forwarding thread's time per small frame). */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static const EVP_MD *md_sha256(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	if (!sha256_md)
		FATAL("cannot fetch SHA-256");
	return sha256_md;
}

struct sha256_ctx *sha256_new(void)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || EVP_DigestInit_ex(c, md_sha256(), NULL) != 1)
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
	if (EVP_Digest(data, n, out, &len, md_sha256(), NULL) != 1)
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

int hex_digit(char c)
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
		int hi = hex_digit(hex[2 * i]), lo = hi < 0 ? -1 : hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return BELAY_EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return hex[2 * n] == '\0' ? 0 : BELAY_EINVAL;
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

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Standard base64 of in[0..n) into o (base64_encoded_len(n) bytes, no NUL). */
static void b64_scalar(const unsigned char *in, size_t n, char *o)
{
	const char *a = b64_alphabet;
	for (; n >= 3; n -= 3, in += 3, o += 4) {
		unsigned v = (unsigned)in[0] << 16 | (unsigned)in[1] << 8 | in[2];
		o[0] = a[v >> 18];
		o[1] = a[v >> 12 & 63];
		o[2] = a[v >> 6 & 63];
		o[3] = a[v & 63];
	}
	if (n) {
		unsigned v = (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0);
		o[0] = a[v >> 18];
		o[1] = a[v >> 12 & 63];
		o[2] = n > 1 ? a[v >> 6 & 63] : '=';
		o[3] = '=';
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_B64_AVX2 1

/* AVX2: 24 input bytes become 32 output characters per step (W. Mula's method). Each
 * 128-bit lane takes 12 bytes: every 3 bytes [a b c] are spread over a 32-bit word as
 * [b a c b], two 16-bit multiplies move the four 6-bit fields into the four bytes, and a
 * small table turns each field into its character by adding an offset for its range. */
__attribute__((target("avx2"))) static size_t b64_avx2(const unsigned char *in, size_t n, char *o)
{
	if (n < 32)
		return 0;
	const __m256i shuf =
	    _mm256_setr_epi8(5, 4, 6, 5, 8, 7, 9, 8, 11, 10, 12, 11, 14, 13, 15, 14, /* lane 0: bytes 4..15 */
			     1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);     /* lane 1: bytes 0..11 */
	const __m256i m0 = _mm256_set1_epi32(0x0fc0fc00), k0 = _mm256_set1_epi32(0x04000040);
	const __m256i m1 = _mm256_set1_epi32(0x003f03f0), k1 = _mm256_set1_epi32(0x01000010);
	/* The offset that makes a 6-bit field its character, by range: 0..25 +65 (A), 26..51 +71
	 * (a), 52..61 -4 (0), 62 -19 (+), 63 -16 (/); the table index is the field minus 51
	 * (saturated), one more above 25. */
	const __m256i lut = _mm256_setr_epi8(65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0, 65, 71, -4,
					     -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0);
	const __m256i c51 = _mm256_set1_epi8(51), c25 = _mm256_set1_epi8(25);
	const unsigned char *start = in;
	/* The first load cannot start 4 bytes early: load in[0..32) and move it up a word. */
	__m256i v = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)in),
						_mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
	for (;;) {
		__m256i x = _mm256_shuffle_epi8(v, shuf);
		__m256i hi = _mm256_mulhi_epu16(_mm256_and_si256(x, m0), k0);
		__m256i lo = _mm256_mullo_epi16(_mm256_and_si256(x, m1), k1);
		__m256i idx = _mm256_or_si256(hi, lo);
		__m256i r = _mm256_subs_epu8(idx, c51);
		r = _mm256_sub_epi8(r, _mm256_cmpgt_epi8(idx, c25));
		_mm256_storeu_si256((__m256i *)o, _mm256_add_epi8(idx, _mm256_shuffle_epi8(lut, r)));
		in += 24;
		o += 32;
		n -= 24;
		if (n < 28) /* the next load reads in[-4..28) */
			break;
		v = _mm256_loadu_si256((const __m256i *)(in - 4));
	}
	return (size_t)(in - start);
}

static int have_avx2(void)
{
	static int known = -1;
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (k < 0) {
		__builtin_cpu_init();
		k = __builtin_cpu_supports("avx2") ? 1 : 0;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k;
}
#endif

void base64_encode(const void *in, size_t n, struct buf *out)
{
	const unsigned char *p = in;
	buf_reserve(out, base64_encoded_len(n));
	char *o = out->p + out->len;
	size_t done = 0;
#ifdef HAVE_B64_AVX2
	if (have_avx2())
		done = b64_avx2(p, n, o);
#endif
	b64_scalar(p + done, n - done, o + done / 3 * 4);
	out->len += base64_encoded_len(n);
	out->p[out->len] = '\0';
}

int base64_decode(const char *in, size_t n, struct buf *out)
{
	if (n % 4 != 0)
		return BELAY_EINVAL;
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
				return BELAY_EINVAL;
		buf_reserve(out, take / 4 * 3);
		int w = EVP_DecodeBlock((unsigned char *)out->p + out->len, (const unsigned char *)in, (int)take);
		if (w < 0 || (size_t)w < pad)
			return BELAY_EINVAL;
		out->len += (size_t)w - pad;
		in += take;
		n -= take;
	}
	buf_reserve(out, 0);
	out->p[out->len] = '\0';
	return 0;
}
