// transcript.cpp: placeholder.
