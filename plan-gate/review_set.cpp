// review_set.cpp: placeholder.
