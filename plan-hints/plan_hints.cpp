// plan_hints.cpp: placeholder until the hook lands.
