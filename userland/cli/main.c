/* main.c - entry point of the probestick program; everything else is in the core archive. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
	return ps_cli_main(argc, argv);
}
