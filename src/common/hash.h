/* hash.h - SHA-256 and base64 over OpenSSL libcrypto. */
#ifndef BELAY_COMMON_HASH_H
#define BELAY_COMMON_HASH_H
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

struct sha256_ctx; /* opaque (an EVP_MD_CTX) */

struct sha256_ctx *sha256_new(void);
void sha256_update(struct sha256_ctx *c, const void *data, size_t n);
/* Writes the digest and frees the context. */
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_LEN]);

void sha256(const void *data, size_t n, uint8_t out[SHA256_LEN]);
/* Writes 64 lowercase hex chars + NUL into out. */
void hex_encode(const uint8_t *in, size_t n, char *out);
/* "sha256:<hex>" of data into out (needs 72 bytes). */
void sha256_tagged(const void *data, size_t n, char out[72]);
/* The value of one hex digit (0-15), or -1 for any other character. */
int hex_digit(char c);
/* Parses exactly 2*n hex chars; returns 0 or BELAY_EINVAL. */
int hex_decode(const char *hex, uint8_t *out, size_t n);

/* Appends standard base64 (with padding, no newlines) of in to out. */
void base64_encode(const void *in, size_t n, struct buf *out);
size_t base64_encoded_len(size_t n);
/* Decodes standard base64 into out (appended). Returns 0, or BELAY_EINVAL on any invalid input. */
int base64_decode(const char *in, size_t n, struct buf *out);

#endif
