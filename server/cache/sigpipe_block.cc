#include "server/cache/sigpipe_block.h"

#include <pthread.h>
#include <time.h>

namespace kiln::server {
namespace {

bool SigpipePending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGPIPE) == 1;
}

}  // namespace

SigpipeBlock::SigpipeBlock() {
  sigemptyset(&pipe_);
  sigaddset(&pipe_, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_, &old_mask_);
  was_pending_ = SigpipePending();
}

SigpipeBlock::~SigpipeBlock() {
  if (!was_pending_ && SigpipePending()) {
    timespec zero = {0, 0};
    sigtimedwait(&pipe_, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace kiln::server
