// Keeps a write to a closed socket or pipe from killing the process. Libraries that write with
// write() (hiredis does; it cannot use send(MSG_NOSIGNAL)) raise SIGPIPE when the peer is gone,
// and its default action ends the process. Setting SIGPIPE to SIG_IGN process-wide would be
// global state a library must not change, so instead the calling thread blocks SIGPIPE for the
// scope of its writes, which then fail with EPIPE, and the signal they left pending is consumed.
#ifndef KILN_SERVER_CACHE_SIGPIPE_BLOCK_H_
#define KILN_SERVER_CACHE_SIGPIPE_BLOCK_H_

#include <signal.h>

namespace kiln::server {

class SigpipeBlock {
 public:
  SigpipeBlock();
  // Consumes a SIGPIPE raised in the scope (one pending before it is left for its owner) and
  // restores the thread's signal mask.
  ~SigpipeBlock();
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_mask_;
  bool was_pending_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_SIGPIPE_BLOCK_H_
