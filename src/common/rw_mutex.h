// A reader-writer lock that lets a waiting writer in before new readers. std::shared_mutex is
// glibc's default rwlock, which keeps letting readers in while a writer waits: a user searched
// without pause by a few threads kept its writer (and the searches waiting for that write)
// waiting for hundreds of milliseconds (docs/RESULTS.md, session 42). A thread must not take
// the shared lock twice: with a writer waiting, the second request would wait forever.
#pragma once

#include <pthread.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ontomem {

class WriterFirstMutex {
 public:
  WriterFirstMutex() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
#ifdef __GLIBC__
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
    const int rc = pthread_rwlock_init(&rw_, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (rc != 0) {  // glibc does not fail here; a lock that does not work must not be used
      std::fprintf(stderr, "ontomem: pthread_rwlock_init failed (%d)\n", rc);
      std::abort();
    }
  }
  ~WriterFirstMutex() { pthread_rwlock_destroy(&rw_); }
  WriterFirstMutex(const WriterFirstMutex&) = delete;
  WriterFirstMutex& operator=(const WriterFirstMutex&) = delete;

  // Lockable and SharedLockable, for std::unique_lock and std::shared_lock.
  void lock() { pthread_rwlock_wrlock(&rw_); }
  bool try_lock() { return pthread_rwlock_trywrlock(&rw_) == 0; }
  // The exclusive lock if it can be had within `wait` (readers holding it finish their work).
  // On the realtime clock: ThreadSanitizer does not see pthread_rwlock_clockwrlock.
  bool try_lock_for(std::chrono::milliseconds wait) {
    timespec until{};
    clock_gettime(CLOCK_REALTIME, &until);
    const long long ns = until.tv_nsec + static_cast<long long>(wait.count()) * 1000000LL;
    until.tv_sec += static_cast<time_t>(ns / 1000000000LL);
    until.tv_nsec = static_cast<long>(ns % 1000000000LL);
    return pthread_rwlock_timedwrlock(&rw_, &until) == 0;
  }
  void unlock() { pthread_rwlock_unlock(&rw_); }
  void lock_shared() { pthread_rwlock_rdlock(&rw_); }
  bool try_lock_shared() { return pthread_rwlock_tryrdlock(&rw_) == 0; }
  void unlock_shared() { pthread_rwlock_unlock(&rw_); }

 private:
  pthread_rwlock_t rw_;
};

}  // namespace ontomem
