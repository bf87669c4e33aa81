# bash completion for muster(1), where bash-completion looks under the prefix.
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = completion/muster

# Its test: completions asked of the script in bash, against this build.
shell_tests += tests/completion/complete.sh
