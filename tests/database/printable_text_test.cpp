// printable(): file text made safe for a terminal (issue 14, defect 8: device names were printed
// raw, escapes and all).
#include <gtest/gtest.h>

#include <string>

#include "database/printable_text.hpp"

namespace jitgemm {
namespace {

TEST(PrintableText, KeepsPrintableAsciiAndWellFormedUtf8) {
  EXPECT_EQ(printable("NVIDIA H100 80GB HBM3|sm90|gemm.fp32"), "NVIDIA H100 80GB HBM3|sm90|gemm.fp32");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xC2\xA0"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xC2\xA0");
  EXPECT_EQ(printable(""), "");
}

TEST(PrintableText, EscapesControlBytesAndDelete) {
  EXPECT_EQ(printable("evil\x1b[2J\x07"), "evil\\x1B[2J\\x07");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("tab\tcr\rnl\n"), "tab\\x09cr\\x0Dnl\\x0A");
  EXPECT_EQ(printable("del\x7f"), "del\\x7F");
}

TEST(PrintableText, EscapesTheC1ControlsEvenAsUtf8) {
  EXPECT_EQ(printable("\xC2\x9B" "31m"), "\\xC2\\x9B31m");  // U+009B, CSI
  EXPECT_EQ(printable("\xC2\x80\xC2\x9F"), "\\xC2\\x80\\xC2\\x9F");
  EXPECT_EQ(printable("\xC2\xA0"), "\xC2\xA0");  // U+00A0 is not a control
}

TEST(PrintableText, EscapesEveryByteThatIsNotWellFormedUtf8) {
  EXPECT_EQ(printable("\xff\xfe"), "\\xFF\\xFE");
  EXPECT_EQ(printable("\x80x"), "\\x80x");                   // a stray continuation byte
  EXPECT_EQ(printable("\xC3"), "\\xC3");                      // truncated at the end
  EXPECT_EQ(printable("\xC3x"), "\\xC3x");                    // truncated before ASCII
  EXPECT_EQ(printable("\xC0\xAF"), "\\xC0\\xAF");             // overlong '/'
  EXPECT_EQ(printable("\xE0\x80\xAF"), "\\xE0\\x80\\xAF");    // overlong, three bytes
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xED\\xA0\\x80");    // a surrogate
  EXPECT_EQ(printable("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable("\xE2\x82"), "\\xE2\\x82");             // truncated euro sign
}

TEST(PrintableText, IsIdempotentAndCanKeepLineBreaks) {
  const std::string nasty = "a\x1b]0;title\x07\n\xC2\x9B\xff\xE2\x82\xAC";
  const std::string once = printable(nasty);
  EXPECT_EQ(printable(once), once);
  for (char c : once) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) << once;
  EXPECT_EQ(printable("line 1\nline\x1b 2", LineBreaks::Keep), "line 1\nline\\x1B 2");
  EXPECT_EQ(printable("cr\r\n", LineBreaks::Keep), "cr\\x0D\n");
}

}  // namespace
}  // namespace jitgemm
