/* send.h - `probestick send`: run folders from a stick or a disk to the collector. */
#ifndef PS_CLI_SEND_H
#define PS_CLI_SEND_H

/* argv after the word "send"; the exit code (0 all delivered, 1 not, 2 usage). */
int ps_send_main(int argc, char **argv);

#endif
