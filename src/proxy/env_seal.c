/* env_seal.c - sealing a recorded environment with the state directory's key. See
 * env_seal.h. */
#include "proxy/env_seal.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jcs.h"

/* Loads the key; creates it when absent and `create`. */
static int load_key(const char *state_dir, int create, unsigned char key[32], struct err *e)
{
	char *path = fs_join(state_dir, "env.key");
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
		    read(fd, key, 32) != 32)
			rc = err_set(e, BELAY_EREFUSED, "refusing %s: it must be a 32-byte file, ours, mode 0600", path);
		close(fd);
	} else if (errno == ENOENT && create) {
		unsigned char k[32];
		if (getrandom(k, 32, 0) != 32) {
			rc = err_set(e, -errno, "getrandom: %s", strerror(errno));
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
			if (fd >= 0 && fs_write_all(fd, k, 32) == 0) {
				memcpy(key, k, 32);
			} else if (fd < 0 && errno == EEXIST) {
				free(path);
				return load_key(state_dir, 0, key, e); /* another process made it first */
			} else {
				rc = err_set(e, -errno, "cannot create %s: %s", path, strerror(errno));
			}
			if (fd >= 0)
				close(fd);
		}
		OPENSSL_cleanse(k, sizeof k);
	} else {
		rc = err_set(e, errno == ENOENT ? BELAY_ENOTFOUND : -errno, "cannot open %s: %s", path, strerror(errno));
	}
	free(path);
	return rc;
}

static int mac_of(const unsigned char key[32], const cJSON *record, char out[ENV_SEAL_LEN], struct err *e)
{
	struct buf c = {0};
	if (!record || jcs_serialize(record, &c) != 0) {
		buf_free(&c);
		return err_set(e, BELAY_EINVAL, "the environment record cannot be put in canonical form");
	}
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	HMAC(EVP_sha256(), key, 32, (const unsigned char *)(c.p ? c.p : ""), c.len, mac, &len);
	buf_free(&c);
	memcpy(out, ENV_SEAL_PREFIX, 12);
	hex_encode(mac, SHA256_LEN, out + 12);
	out[ENV_SEAL_LEN - 1] = '\0';
	return 0;
}

int env_seal_make(const char *state_dir, const cJSON *record, char out[ENV_SEAL_LEN], struct err *e)
{
	unsigned char key[32];
	int rc = load_key(state_dir, 1, key, e);
	if (rc == 0)
		rc = mac_of(key, record, out, e);
	OPENSSL_cleanse(key, sizeof key);
	return rc;
}

int env_seal_check(const char *state_dir, const cJSON *record, const char *seal)
{
	if (!state_dir || !seal || strlen(seal) != ENV_SEAL_LEN - 1)
		return 0;
	unsigned char key[32];
	struct err e = {0};
	char want[ENV_SEAL_LEN];
	int ok = load_key(state_dir, 0, key, &e) == 0 && mac_of(key, record, want, &e) == 0 &&
		 CRYPTO_memcmp(want, seal, ENV_SEAL_LEN - 1) == 0;
	OPENSSL_cleanse(key, sizeof key);
	return ok;
}
