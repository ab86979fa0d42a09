/*
 * ram_file.h — an in-memory file, as OTP's ram_file_drv keeps one: the
 * port that kernel's ram_file module opens ({spawn, "ram_file_drv"}) for
 * file:open(Data, [ram | Modes]), and through it erl_tar's and zip's
 * in-memory archives. ports.c runs its commands as they come, under the
 * executor mutex, and sends each reply to the port's connected process.
 *
 * The protocol is the driver's: a command is a byte (open 1, read 2, seek 3,
 * write 4, sync 9, truncate 14, pread 17, pwrite 18, datasync 19, get the
 * contents 30, size 37, advise 38, allocate 39) and its big-endian
 * operands; a reply starts with a byte: 0 ok (with any data), 1 an error
 * (its name follows, as text), 2 a length and that many bytes, 3 a
 * number.
 */
#ifndef CLAUSE_RAM_FILE_H
#define CLAUSE_RAM_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ram_file;

/* NULL when memory was refused. */
struct ram_file *ram_file_new(void);
void ram_file_free(struct ram_file *f);

/* A reply: its header (the code and any operand or error name), then
 * data bytes of the file (valid until the next command), maybe none. */
struct ram_file_reply {
    uint8_t header[16];
    size_t header_len;
    const uint8_t *data;
    size_t data_len;
};

/* Runs the command of len bytes; false when memory was refused (the
 * file unchanged, no reply). */
bool ram_file_command(struct ram_file *f, const uint8_t *cmd, size_t len, struct ram_file_reply *reply);

#endif
