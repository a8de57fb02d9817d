// Parsing a database file's JSON with positions in every error (see json_document.hpp).
#include "database/json_document.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "database/printable_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

// nlohmann messages start with "[json.exception.parse_error.101] "; keep the rest.
std::string without_exception_tag(const char* what) {
  std::string_view text(what);
  const size_t end = text.find("] ");
  return std::string(!text.empty() && text.front() == '[' && end != std::string_view::npos ? text.substr(end + 2)
                                                                                            : text);
}

// Follows the parser through the document (its callback events) to know where it is, and
// notes a key that appears twice in one object.
class PositionTracker {
 public:
  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: open_frame(false); break;
      case json::parse_event_t::array_start: open_frame(true); break;
      case json::parse_event_t::key: on_key(parsed.get<std::string>()); break;
      case json::parse_event_t::value: next_element(); break;
      case json::parse_event_t::object_end:
        check_keys(parsed);
        close_frame();
        break;
      case json::parse_event_t::array_end: close_frame(); break;
    }
    return true;  // keep every value
  }

  // "records[3].timing.runs": the member being read (empty at the top level).
  std::string path() const { return path_of(frames_.size()); }

  const std::string& duplicate_key() const noexcept { return duplicate_key_; }
  const std::string& duplicate_path() const noexcept { return duplicate_path_; }

 private:
  struct Frame {
    bool array = false;
    size_t index = 0;               // array: the element being read
    std::vector<std::string> keys;  // object: the keys in the order read; the last one's member is being read
  };

  void open_frame(bool array) {
    frames_.emplace_back();
    frames_.back().array = array;
  }

  void close_frame() {
    if (!frames_.empty()) frames_.pop_back();
    next_element();
  }

  void on_key(std::string key) {
    if (!frames_.empty()) frames_.back().keys.push_back(std::move(key));
  }

  // The object just read holds fewer members than keys were read: one came twice (the library
  // kept the last). Finds which, in O(n log n), only then.
  void check_keys(const json& object) {
    if (frames_.empty() || !duplicate_key_.empty() || frames_.back().keys.size() == object.size()) return;
    std::vector<std::string> keys = frames_.back().keys;
    std::sort(keys.begin(), keys.end());
    duplicate_key_ = *std::adjacent_find(keys.begin(), keys.end());
    duplicate_path_ = path_of(frames_.size() - 1);  // the object that holds it twice
  }

  // A value ended: in an array, the next one is the next element.
  void next_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string path_of(size_t depth) const {
    std::string path;
    for (size_t i = 0; i < depth; ++i) {
      const Frame& f = frames_[i];
      if (f.array) {
        path += fmt::format("[{}]", f.index);
      } else {
        if (!path.empty()) path += '.';
        if (!f.keys.empty()) path += printable(f.keys.back());
      }
    }
    return path;
  }

  std::vector<Frame> frames_;
  std::string duplicate_key_, duplicate_path_;
};

}  // namespace

json parse_json_document(std::string_view text, std::string_view source_name) {
  PositionTracker tracker;
  json j;
  try {
    j = json::parse(text, [&](int, json::parse_event_t event, json& parsed) { return tracker.on_event(event, parsed); });
  } catch (const json::parse_error& e) {
    const std::string path = tracker.path();
    throw DatabaseError(fmt::format("{}: invalid JSON at byte {}{}: {}", source_name, e.byte,
                                    path.empty() ? "" : fmt::format(" (in {})", path),
                                    printable(without_exception_tag(e.what()))));
  } catch (const json::exception& e) {  // a number beyond double's range (1e400): no byte offset
    const std::string path = tracker.path();
    throw DatabaseError(fmt::format("{}: invalid JSON{}: {}", source_name, path.empty() ? "" : " in " + path,
                                    printable(without_exception_tag(e.what()))));
  }
  if (!tracker.duplicate_key().empty())
    throw DatabaseError(fmt::format("{}: {}{}duplicate key \"{}\" in one object (the file is damaged)", source_name,
                                    tracker.duplicate_path(), tracker.duplicate_path().empty() ? "" : ": ",
                                    printable(tracker.duplicate_key())));
  return j;
}

}  // namespace jitgemm
