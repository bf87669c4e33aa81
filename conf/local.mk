# The default config: installed once, never over an administrator's edits.
EXTRA_DIST += conf/muster.conf

install-data-local: install-muster-conf
install-muster-conf:
	$(MKDIR_P) '$(DESTDIR)$(musterconfdir)' '$(DESTDIR)$(musterconfdir)/muster.conf.d'
	@if test -f '$(DESTDIR)$(musterconfdir)/muster.conf'; then \
	  echo "keeping the existing $(DESTDIR)$(musterconfdir)/muster.conf"; \
	else \
	  echo " $(INSTALL_DATA) $(srcdir)/conf/muster.conf '$(DESTDIR)$(musterconfdir)/muster.conf'"; \
	  $(INSTALL_DATA) '$(srcdir)/conf/muster.conf' '$(DESTDIR)$(musterconfdir)/muster.conf'; \
	fi

# Remove the config only when it is still the shipped one.
uninstall-local: uninstall-muster-conf
uninstall-muster-conf:
	@if cmp -s '$(srcdir)/conf/muster.conf' '$(DESTDIR)$(musterconfdir)/muster.conf'; then \
	  rm -f '$(DESTDIR)$(musterconfdir)/muster.conf'; \
	fi
	-rmdir '$(DESTDIR)$(musterconfdir)/muster.conf.d' '$(DESTDIR)$(musterconfdir)' 2>/dev/null

.PHONY: install-muster-conf uninstall-muster-conf
