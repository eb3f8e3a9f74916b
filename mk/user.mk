# Common rules for the userspace directories (included by their Makefiles).
# Objects go to $(BUILD)/obj/<dir>/, programs to $(BUILD)/bin/.

BUILD	?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../build)
TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
BINDIR	:= $(BUILD)/bin
OBJDIR	:= $(BUILD)/obj/$(notdir $(CURDIR))

CC	?= cc
CFLAGS	?= -O2 -g
CFLAGS	+= -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I$(TOP)/uapi -I$(TOP)/lib
PKG_CONFIG ?= pkg-config
