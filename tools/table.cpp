// Plain-text tables for the command-line tools (see table.hpp).
#include "table.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "database/printable_text.hpp"

namespace jitgemm {
namespace {

// Columns on a terminal: UTF-8 code points, not bytes.
size_t display_width(std::string_view text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

void append_cell(std::string& line, const std::string& cell, size_t width, bool right) {
  std::string padding(width - std::min(width, display_width(cell)), ' ');
  line += right ? padding + cell : cell + padding;
}

// "" or "-": takes the alignment of its column.
bool is_placeholder(std::string_view cell) { return cell.empty() || cell == "-"; }

void trim_right(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

bool is_numeric_cell(std::string_view cell) noexcept {
  if (cell.ends_with("ms")) cell.remove_suffix(2);
  else if (cell.ends_with("x")) cell.remove_suffix(1);
  while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
  if (cell.empty() || cell.front() == ' ') return false;
  std::string text(cell);
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {
  for (std::string& header : headers_) header = printable(header);
}

void Table::add_row(std::vector<std::string> cells) {
  for (std::string& cell : cells) cell = printable(cell);  // cells often hold file text (device names, details)
  if (cells.size() > headers_.size()) headers_.resize(cells.size());
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  const size_t columns = headers_.size();
  std::vector<size_t> width(columns);
  std::vector<bool> numeric_column(columns, !rows_.empty());
  for (size_t c = 0; c < columns; ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& row : rows_) {
      width[c] = std::max(width[c], display_width(row[c]));
      numeric_column[c] = numeric_column[c] && (is_placeholder(row[c]) || is_numeric_cell(row[c]));
    }
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells, bool header) {
    std::string line;
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) line += "  ";
      bool right = (numeric_column[c] && (header || is_placeholder(cells[c]))) || is_numeric_cell(cells[c]);
      append_cell(line, cells[c], width[c], right);
    }
    trim_right(line);
    out += line + '\n';
  };
  emit(headers_, true);
  std::string rule;
  for (size_t c = 0; c < columns; ++c) rule += (c > 0 ? "  " : "") + std::string(width[c], '-');
  out += rule + '\n';
  for (const auto& row : rows_) emit(row, false);
  return out;
}

}  // namespace jitgemm
