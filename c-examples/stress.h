/*
 * stress.h: what the parts of the stress program (stress.c) share. The program is
 * built from stress.c (the operations and main), stress_agent.c (the agent handle's
 * operation), stress_support.c (randomness, checking, inputs, size queries) and
 * stress_handles.c (the handles kept between operations).
 */
#ifndef AGENTLOOP_STRESS_H
#define AGENTLOOP_STRESS_H

#include <agentloop.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ randomness */

/* The xorshift PRNG's state: seeded once by main, never from a clock. */
extern uint64_t rng_state;

uint64_t next_u64(void);
/* A number in [0, n), or 0 when n is 0. */
size_t below(size_t n);
/* True one time in `n`. */
bool one_in(size_t n);

/* ------------------------------------------------------------ checking */

/* The iteration running, the calls made and how many returned OK. */
extern unsigned long iteration;
extern unsigned long calls;
extern unsigned long oks;

#define BIT(r) (1u << (r))
#define ANY_INPUT                                                                 \
    (BIT(AGENTLOOP_RESULT_INVALID_UTF8) | BIT(AGENTLOOP_RESULT_INVALID_JSON) |   \
     BIT(AGENTLOOP_RESULT_NO_CANONICAL_FORM) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER))

/* Names the iteration, the call and what was wrong on stderr, and exits 1. */
void fail(const char *what, const char *why);
/* The result must be one of `allowed` (a mask of result codes). */
agentloop_result expect(agentloop_result r, uint32_t allowed, const char *what);
void check_static_string(const char *s, const char *what);

/* ------------------------------------------------------------ inputs */

#define MAX_INPUT 4096

/* Appended lines, reused as transcripts to verify (and to mutate). */
extern uint8_t transcript[1 << 16];
extern size_t transcript_len;

/* Fills `buf` (MAX_INPUT bytes) with one kind of input and returns its length. */
size_t make_input(uint8_t *buf);
/* One of the sample JSON Schemas, at random. */
const char *random_schema(void);
/* A pointer to the input, or NULL (with its length kept, to test the NULL check). */
const uint8_t *maybe_null(const uint8_t *p);

/* ------------------------------------------------------------ size queries */

typedef agentloop_result (*size_query_fn)(void *ctx, uint8_t *buf, size_t cap, size_t *len);

/* Calls a size-query export with a buffer of a random size and checks the protocol;
 * returns the result. */
agentloop_result size_query(size_query_fn fn, void *ctx, uint32_t allowed, const char *what);

/* ------------------------------------------------------------ handles */

#define SLOTS 4
extern agentloop_chain *chains[SLOTS];
extern agentloop_report *reports[SLOTS];
extern agentloop_verifier *verifiers[SLOTS];
extern agentloop_schema *schemas[SLOTS];
extern agentloop_agent *agents[SLOTS];

/* A live handle from `slots`, or NULL now and then (or when the slot is empty). */
#define PICK(slots) (one_in(20) ? NULL : (slots)[below(SLOTS)])

/* Frees the handle in `slots[i]` with `free_fn`, leaving the slot empty, and then, as
 * a careless host may, frees NULL. */
#define FREE_SLOT(slots, i, free_fn)                                                     \
    do {                                                                                 \
        free_fn((slots)[i]);                                                             \
        (slots)[i] = NULL;                                                               \
        free_fn(NULL);                                                                   \
    } while (0)

void random_options(agentloop_verify_options *o);
/* Reads everything a report (or NULL) offers and checks it holds together. */
void read_report(const agentloop_report *report);
void free_slot_report(size_t i);
/* Keeps `report` in a random slot, freeing the one there. */
void put_report(agentloop_report *report);
/* Frees every handle kept (at the end). */
void free_all_handles(void);

/* ------------------------------------------------------------ operations */

/* The agent handle's operation (stress_agent.c). */
void op_agent(const uint8_t *in, size_t len);

#endif
