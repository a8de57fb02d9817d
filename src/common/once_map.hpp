// A map whose values are made once, on first request, by the requester, without holding a lock
// while they are made: requests for a key being made wait for that make, requests for other keys
// go on (the Runtime's module cache and the launcher's pre-pass kernels: two threads that meet two
// new problems compile their two kernels at once, and two that meet the same one compile it
// once). Thread-safe.
//
//   OnceMap<std::string, std::unique_ptr<LoadedKernel>> modules;
//   const auto& kernel = modules.get(identity, [&] { return load(identity); });
//
// A make that throws leaves nothing behind: its caller gets the exception, and so does no one
// else; a caller waiting for it, or a later one, makes the value afresh. Values are never
// removed, so the references get returns stay valid for the map's life.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace jitgemm {

template <class Key, class Value, class Hash = std::hash<Key>>
class OnceMap {
 public:
  // The value of `key`, made by make() (a callable returning a Value) if no one made it yet.
  template <class Make>
  const Value& get(const Key& key, Make&& make) {
    std::unique_lock lock(mutex_);
    std::unique_ptr<Slot>& owned = slots_[key];
    if (!owned) owned = std::make_unique<Slot>();
    Slot& slot = *owned;  // stable: slots are never erased
    made_.wait(lock, [&] { return slot.value.has_value() || !slot.making; });
    if (slot.value) return *slot.value;
    slot.making = true;
    lock.unlock();
    try {
      Value value = make();
      lock.lock();
      slot.value.emplace(std::move(value));
    } catch (...) {
      if (!lock.owns_lock()) lock.lock();
      slot.making = false;
      made_.notify_all();
      throw;
    }
    slot.making = false;
    made_.notify_all();
    return *slot.value;
  }

  // Values made so far (not counting those being made).
  size_t size() const {
    std::lock_guard lock(mutex_);
    size_t n = 0;
    for (const auto& [key, slot] : slots_) n += slot->value.has_value();
    return n;
  }

 private:
  struct Slot {
    std::optional<Value> value;
    bool making = false;  // a caller is making it, outside the lock
  };
  mutable std::mutex mutex_;
  std::condition_variable made_;  // a make finished (or failed)
  std::unordered_map<Key, std::unique_ptr<Slot>, Hash> slots_;
};

}  // namespace jitgemm
