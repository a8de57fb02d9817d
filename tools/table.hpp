// A plain-text table for the command-line tools: padded columns, numbers right-aligned,
// a rule under the header. Every cell is stored as printable() makes it (database/
// printable_text.hpp): control bytes and invalid UTF-8 from a file show as "\xNN" and cannot
// steer the terminal or break the columns.
//
//   Table t({"problem", "time ms"});
//   t.add_row({"4096^3", "3.375"});
//   fmt::print("{}", t.render());
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jitgemm {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);

  // A row with fewer cells than headers is padded with empty cells; extra cells add
  // columns with empty headers.
  void add_row(std::vector<std::string> cells);

  // Columns separated by two spaces. A cell that reads as a number, optionally followed
  // by "x" or "ms" ("1.03x", "3.4 ms", "2.5e-07"), is right-aligned; so are the header
  // and the placeholders ("" or "-") of a column whose other cells all are. Lines end
  // with '\n' and have no trailing spaces.
  std::string render() const;

  size_t row_count() const noexcept { return rows_.size(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// True for cells that render() right-aligns.
bool is_numeric_cell(std::string_view cell) noexcept;

}  // namespace jitgemm
