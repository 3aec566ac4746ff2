/* osuser.h - who is running belay, for "by whom" columns (labels, verifications). */
#ifndef BELAY_COMMON_OSUSER_H
#define BELAY_COMMON_OSUSER_H

/* The login name of the effective uid (getpwuid), or "uid:<n>" when it has none. Returns a
 * new string; caller frees. */
char *os_user_name(void);

#endif
