// shell_lexer.cpp: placeholder.
