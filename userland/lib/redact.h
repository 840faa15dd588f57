/*
 * redact.h - the settings no message, report or log shows (a password, a
 * URL that may hold one), and the kernel command line with their values
 * hidden: pure, for the inventory's reader of the command line (hw/) as
 * much as for the settings (core/config.c).
 */
#ifndef PS_LIB_REDACT_H
#define PS_LIB_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* probestick.cfg's keys whose values no message, report or log shows. */
bool ps_config_secret(const char *key);

/*
 * The kernel command line as a report may show it: the values of secret
 * keys (probestick.collect_password=) and a URL's user:password@ replaced
 * by "*". In place. Pure.
 */
void ps_config_redact_cmdline(char *cmdline);

/* A URL without its user:password@ (len >= strlen(url) + 1). Pure. */
void ps_config_redact_url(const char *url, char *out, size_t len);

#endif
