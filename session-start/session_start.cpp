// session_start.cpp: placeholder until the hook lands.
