/* cli.h - the probestick command line (docs/design.md, "CLI"). */
#ifndef PS_CLI_H
#define PS_CLI_H

#include <stddef.h>

int ps_cli_main(int argc, char **argv);

#endif
