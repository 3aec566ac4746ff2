/* sandbox_uapi.h - kernel interface constants the filter and the supervisor both need that
 * Debian 12's headers (linux-libc-dev 6.1, glibc 2.36) may lack. Values from the kernel's
 * uapi headers. */
#ifndef BELAY_SANDBOX_SANDBOX_UAPI_H
#define BELAY_SANDBOX_SANDBOX_UAPI_H
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#ifndef FS_IOC_FSSETXATTR
#define FS_IOC_FSSETXATTR _IOW('X', 32, struct fsxattr)
#endif
#ifndef FS_IOC32_SETFLAGS
#define FS_IOC32_SETFLAGS _IOW('f', 2, int)
#endif
#ifndef F_OFD_SETLK
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif

#endif
