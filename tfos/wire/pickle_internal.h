/*
 * Shared between the pickle codec's files: the opcode bytes and a few
 * helpers the public header does not need to show.
 */
#ifndef MUSTER_TFOS_WIRE_PICKLE_INTERNAL_H
#define MUSTER_TFOS_WIRE_PICKLE_INTERNAL_H

#include "pickle.h"

/* Python's opcode bytes (Lib/pickle.py). */
enum {
	OP_MARK = '(',
	OP_STOP = '.',
	OP_POP = '0',
	OP_POP_MARK = '1',
	OP_DUP = '2',
	OP_FLOAT = 'F',
	OP_INT = 'I',
	OP_BININT = 'J',
	OP_BININT1 = 'K',
	OP_LONG = 'L',
	OP_BININT2 = 'M',
	OP_NONE = 'N',
	OP_PERSID = 'P',
	OP_BINPERSID = 'Q',
	OP_REDUCE = 'R',
	OP_STRING = 'S',
	OP_BINSTRING = 'T',
	OP_SHORT_BINSTRING = 'U',
	OP_UNICODE = 'V',
	OP_BINUNICODE = 'X',
	OP_APPEND = 'a',
	OP_BUILD = 'b',
	OP_GLOBAL = 'c',
	OP_DICT = 'd',
	OP_EMPTY_DICT = '}',
	OP_APPENDS = 'e',
	OP_GET = 'g',
	OP_BINGET = 'h',
	OP_INST = 'i',
	OP_LONG_BINGET = 'j',
	OP_LIST = 'l',
	OP_EMPTY_LIST = ']',
	OP_OBJ = 'o',
	OP_PUT = 'p',
	OP_BINPUT = 'q',
	OP_LONG_BINPUT = 'r',
	OP_SETITEM = 's',
	OP_TUPLE = 't',
	OP_EMPTY_TUPLE = ')',
	OP_SETITEMS = 'u',
	OP_BINFLOAT = 'G',
	OP_PROTO = 0x80,
	OP_NEWOBJ = 0x81,
	OP_EXT1 = 0x82,
	OP_EXT2 = 0x83,
	OP_EXT4 = 0x84,
	OP_TUPLE1 = 0x85,
	OP_TUPLE2 = 0x86,
	OP_TUPLE3 = 0x87,
	OP_NEWTRUE = 0x88,
	OP_NEWFALSE = 0x89,
	OP_LONG1 = 0x8a,
	OP_LONG4 = 0x8b,
	OP_BINBYTES = 'B',
	OP_SHORT_BINBYTES = 'C',
	OP_SHORT_BINUNICODE = 0x8c,
	OP_BINUNICODE8 = 0x8d,
	OP_BINBYTES8 = 0x8e,
	OP_EMPTY_SET = 0x8f,
	OP_ADDITEMS = 0x90,
	OP_FROZENSET = 0x91,
	OP_NEWOBJ_EX = 0x92,
	OP_STACK_GLOBAL = 0x93,
	OP_MEMOIZE = 0x94,
	OP_FRAME = 0x95,
	OP_BYTEARRAY8 = 0x96,
	OP_NEXT_BUFFER = 0x97,
	OP_READONLY_BUFFER = 0x98
};

/* Room for `extra` more items in a list or tuple.  0 or -1. */
int pv_seq_reserve(pv *seq, size_t extra);

/* May k be a dict key (pickle.h's rule)? */
bool pv_key_ok(const pv *k);

#endif
