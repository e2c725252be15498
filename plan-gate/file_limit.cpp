// file_limit.cpp: placeholder.
